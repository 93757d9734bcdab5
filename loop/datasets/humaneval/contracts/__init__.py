"""Input contracts, generators, corrected references and output equivalences for the 164 HumanEval problems.

One module per problem (`p000` .. `p163`), written by hand from the problem's docstring; `loop tasks import
humaneval` copies each into its task's `relations.py`. See the README ("HumanEval contracts").
"""
