# C declarations of rng.py for the compiled build (Cython reads them with the .py; Python ignores them).

cdef class Rng:
    cdef public unsigned long long state

    cpdef unsigned long long next64(self)
    cpdef unsigned long long below(self, long long n)
    cpdef shuffle(self, list items)
