from loop.cli import cli

cli()
