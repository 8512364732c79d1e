// Typed LAPACK entry points (through LAPACKE's column-major *_work functions, which call LAPACK
// directly with the caller's workspace and allocate nothing) and the workspace-size cache.
//
// Every function takes column-major matrices and returns LAPACK's info. Sizes above INT32_MAX
// (LAPACK's LP64 integers) throw BackendFailure naming the routine; so does info < 0 (an illegal
// argument is a bug in tenferro, not bad input).
#pragma once

#include <complex>
#include <cstdint>

#include "cpu/admission.hpp"
#include "tenferro/dtype.hpp"

namespace tenferro::detail::linalg {

using I = std::int64_t;

/// Workspace a routine needs, in elements: work (T), rwork (real), iwork (32-bit ints).
struct WorkSizes {
  I work = 0, rwork = 0, iwork = 0;
};

/// Which routine sequence a workspace query is for (part of the cache key).
enum class Routine : std::uint8_t { gesdd, heevd, geqrf_orgqr, geev, geqp3_orgqr };

/// The workspace of (routine, dtype, m, n, job; for geqrf_orgqr job 'C' = complete Q), queried from
/// LAPACK once per engine and cached (ctx's engine caches; a miss runs the query, a hit touches no
/// heap).
template <class T>
WorkSizes workspace(ExecContext& ctx, Routine r, I m, I n, char job);

/// jobz: 'N' (values), 'S' (thin), 'A' (full). rwork/iwork as queried.
template <class T>
I gesdd(char jobz, I m, I n, T* a, I lda, real_t<T>* s, T* u, I ldu, T* vt, I ldvt,
        const WorkSizes& ws, T* work, real_t<T>* rwork, int* iwork);
/// jobz: 'N' or 'V'; uplo 'L' or 'U'.
template <class T>
I heevd(char jobz, char uplo, I n, T* a, I lda, real_t<T>* w, const WorkSizes& ws, T* work,
        real_t<T>* rwork, int* iwork);
/// Householder QR of m x n a (R above the diagonal, reflectors below, tau min(m, n)).
template <class T>
I geqrf(I m, I n, T* a, I lda, T* tau, const WorkSizes& ws, T* work);
/// Forms the first qcols columns of Q from geqrf's k reflectors in a (orgqr / ungqr).
template <class T>
I orgqr(I m, I qcols, I k, T* a, I lda, const T* tau, const WorkSizes& ws, T* work);
template <class T>
I potrf(char uplo, I n, T* a, I lda);
template <class T>
I getrf(I n, T* a, I lda, int* ipiv);
/// LU with partial pivoting of a rectangular m x n a (min(m, n) pivots, 1-based).
template <class T>
I getrf_mn(I m, I n, T* a, I lda, int* ipiv);
/// Eigenvalues (w, complex) and right eigenvectors of a general n x n a (geev, no balancing
/// choice: LAPACK's default 'B'). jobvr 'N' or 'V'. Real T: vr holds LAPACK's packed real pairs
/// (columns j, j + 1 for a conjugate pair). rwork: 2n reals (the real parts / imaginary parts of
/// the eigenvalues for real T, LAPACK's rwork for complex T).
template <class T>
I geev(char jobvr, I n, T* a, I lda, std::complex<real_t<T>>* w, T* vr, I ldvr, const WorkSizes& ws,
       T* work, real_t<T>* rwork);
/// QR with column pivoting of m x n a (geqp3): jpvt (n, 1-based, set to 0 on entry: all columns
/// free), tau min(m, n); rwork 2n reals for complex T.
template <class T>
I geqp3(I m, I n, T* a, I lda, int* jpvt, T* tau, const WorkSizes& ws, T* work, real_t<T>* rwork);
/// trans: 'N', 'T' or 'C'.
template <class T>
I getrs(char trans, I n, I nrhs, const T* a, I lda, const int* ipiv, T* b, I ldb);

}  // namespace tenferro::detail::linalg
