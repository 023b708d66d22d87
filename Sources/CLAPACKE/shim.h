// Shim over Debian's liblapacke-dev. `lapack_int` is a macro in lapacke.h, which Swift
// cannot import; re-export it as a typedef so Swift sees a type.
#ifndef WORLDTRACK_CLAPACKE_SHIM_H
#define WORLDTRACK_CLAPACKE_SHIM_H
#include <lapacke.h>
// CBLAS (netlib reference, from libblas) for dgemm; Package.swift already links blas.
#include <cblas.h>
typedef lapack_int wt_lapack_int;
#endif
