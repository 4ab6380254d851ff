"""Types for Cython's pure-Python mode, as the interpreted build sees it (Cython ships no stubs).

Interpreted, every decorator returns its argument unchanged and every C type stands for the Python type
it holds: ``cython.declare(cython.int, 3)`` is the int 3, ``cython.cast(cython.double, n)`` a float.
The C types are objects here, not classes, because the code only ever passes them as values (to
``declare``, ``cast``, ``locals``) and indexes them into memoryview types (``cython.int[::1]``).
``compiled`` is False (mypy's ``always_false`` in pyproject.toml), so mypy reads the interpreted branch
of ``if cython.compiled:`` blocks, the one the rules are written in.
"""

import builtins
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar, overload

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)
_F = TypeVar("_F", bound=Callable[..., object])

compiled: builtins.bool

class _View(Protocol[_T]):
    """A one-dimensional typed memoryview (``cython.int[::1]``): interpreted, the numpy array it views."""

    def __len__(self) -> builtins.int: ...
    def __getitem__(self, i: builtins.int, /) -> _T: ...
    def __setitem__(self, i: builtins.int, value: _T, /) -> None: ...

class _ViewType(Generic[_T_co]):
    """The type of a memoryview of C values of Python type ``_T_co``."""

class _CType(Generic[_T_co]):
    """A C type whose values are, interpreted, of Python type ``_T_co``."""

    def __getitem__(self, dims: slice, /) -> _ViewType[_T_co]: ...

int: _CType[builtins.int]
uint: _CType[builtins.int]
long: _CType[builtins.int]
longlong: _CType[builtins.int]
ulonglong: _CType[builtins.int]
Py_ssize_t: _CType[builtins.int]
uchar: _CType[builtins.int]
char: _CType[builtins.int]
bint: _CType[builtins.bool]
double: _CType[builtins.float]
float: _CType[builtins.float]

@overload
def declare(t: _CType[_T], value: _T = ..., *, visibility: builtins.str = ...) -> _T: ...
@overload
def declare(t: _ViewType[_T], *, visibility: builtins.str = ...) -> _View[_T]: ...
@overload
def declare(t: type[_T], value: _T, *, visibility: builtins.str = ...) -> _T: ...
@overload
def declare(t: type[object], *, visibility: builtins.str = ...) -> Any:
    """A class body's declaration of an attribute that holds a Python object (``object``, ``list``,
    an extension type): interpreted it returns None and the instance sets the attribute, so the value
    has no type to give; the attribute's type is its annotation (the engine annotates every one)."""
@overload
def cast(t: _CType[_T], value: builtins.int | builtins.float, /) -> _T: ...
@overload
def cast(t: type[_T], value: object, /, typecheck: builtins.bool = ...) -> _T: ...
def locals(**kwds: _CType[object] | _ViewType[object] | type[object]) -> Callable[[_F], _F]: ...
def returns(t: _CType[object] | type[object]) -> Callable[[_F], _F]: ...
def cclass(cls: _T) -> _T: ...
def ccall(f: _F) -> _F: ...
def cfunc(f: _F) -> _F: ...
def inline(f: _F) -> _F: ...
def final(f: _T) -> _T: ...
def boundscheck(flag: builtins.bool) -> Callable[[_T], _T]: ...
def wraparound(flag: builtins.bool) -> Callable[[_T], _T]: ...
