"""Subcommands of the ``puretree`` command line, one module per group (see :mod:`puretree.cli`)."""
