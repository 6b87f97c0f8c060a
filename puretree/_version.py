"""The package's version, in a module of its own: the command line and the generated code's
header name it without importing the package face.

>>> __version__
'0.1.0'
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
