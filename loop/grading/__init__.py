"""Kind-agnostic grading: the data a grade is made of (model: Options, Attempt, Check, Grade), triage of k attempts into a
verdict (triage), and concluding a grade from its attempts (conclude). No kind, executor, HTTP or SQLite here."""
