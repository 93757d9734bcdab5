"""loop: ask a model endpoint for code patches and grade every candidate locally."""
__version__ = "0.1.0"
