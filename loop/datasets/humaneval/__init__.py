"""HumanEval: import the problems as task folders, with hand-written input contracts per problem."""
