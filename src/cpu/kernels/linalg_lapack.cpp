// LAPACK through LAPACKE's column-major *_work functions (no allocation inside LAPACKE).
#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include <climits>
#include <string>

#include "cpu/bounded_cache.hpp"
#include "cpu/kernels/linalg_lapack.hpp"
#include "tenferro/error.hpp"

namespace tenferro::detail::linalg {
namespace {

lapack_int li(I v, const char* routine) {
  if (v < 0 || v > INT_MAX)
    throw Error(ErrorKind::BackendFailure, std::string(routine) + ": size " + std::to_string(v) +
                                               " exceeds LAPACK's 32-bit integers");
  return static_cast<lapack_int>(v);
}

I checked(lapack_int info, const char* routine) {
  if (info < 0)
    throw Error(ErrorKind::BackendFailure, std::string(routine) + ": LAPACK rejected argument " +
                                               std::to_string(-info) +
                                               " (info < 0, a bug in tenferro; please report)");
  return info;
}

template <class T>
constexpr char prefix() {
  if constexpr (std::is_same_v<T, float>) return 's';
  if constexpr (std::is_same_v<T, double>) return 'd';
  if constexpr (std::is_same_v<T, c64>) return 'c';
  return 'z';
}

// The optimal lwork LAPACK reports in work[0] (a float for s/c: round up).
template <class T>
I lwork_of(const T& w) {
  if constexpr (is_complex_v<T>)
    return static_cast<I>(w.real()) + 1;
  else
    return static_cast<I>(w) + 1;
}

struct WorkKey {
  Routine routine;
  DType dtype;
  char job;
  I m, n;
  bool operator==(const WorkKey&) const = default;
};
struct WorkKeyHash {
  std::size_t operator()(const WorkKey& k) const noexcept {
    std::size_t h = static_cast<std::size_t>(k.routine) * 31 + static_cast<std::size_t>(k.dtype);
    h = h * 131 + static_cast<unsigned char>(k.job);
    h = h * 1000003 + static_cast<std::size_t>(k.m);
    return h * 1000003 + static_cast<std::size_t>(k.n);
  }
};
struct WorkCache {
  BoundedCache<WorkKey, WorkSizes, WorkKeyHash> map{256};
  void clear() { map.clear(); }
};

template <class T>
WorkSizes query(Routine r, I m, I n, char job) {
  using R = real_t<T>;
  constexpr bool cx = is_complex_v<T>;
  T w{};
  WorkSizes ws;
  switch (r) {
    case Routine::gesdd: {
      const I mn = std::min(m, n), mx = std::max(m, n);
      const lapack_int M = li(m, "gesdd"), N = li(n, "gesdd");
      lapack_int iw = 0;
      R rw = 0;
      if constexpr (std::is_same_v<T, float>)
        checked(LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, job, M, N, nullptr, std::max(1, M), nullptr,
                                    nullptr, std::max(1, M), nullptr, std::max(1, N), &w, -1, &iw),
                "sgesdd");
      else if constexpr (std::is_same_v<T, double>)
        checked(LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, job, M, N, nullptr, std::max(1, M), nullptr,
                                    nullptr, std::max(1, M), nullptr, std::max(1, N), &w, -1, &iw),
                "dgesdd");
      else if constexpr (std::is_same_v<T, c64>)
        checked(
            LAPACKE_cgesdd_work(LAPACK_COL_MAJOR, job, M, N, nullptr, std::max(1, M), nullptr,
                                nullptr, std::max(1, M), nullptr, std::max(1, N), &w, -1, &rw, &iw),
            "cgesdd");
      else
        checked(
            LAPACKE_zgesdd_work(LAPACK_COL_MAJOR, job, M, N, nullptr, std::max(1, M), nullptr,
                                nullptr, std::max(1, M), nullptr, std::max(1, N), &w, -1, &rw, &iw),
            "zgesdd");
      ws.work = lwork_of(w);
      ws.iwork = 8 * std::max<I>(1, mn);
      if (cx)
        ws.rwork = job == 'N' ? 7 * std::max<I>(1, mn)
                              : std::max<I>(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn);
      break;
    }
    case Routine::heevd: {
      const lapack_int N = li(n, "heevd"), L = std::max(1, N);
      lapack_int iw = 0;
      R rw = 0;
      if constexpr (std::is_same_v<T, float>)
        checked(LAPACKE_ssyevd_work(LAPACK_COL_MAJOR, job, 'L', N, nullptr, L, nullptr, &w, -1, &iw,
                                    -1),
                "ssyevd");
      else if constexpr (std::is_same_v<T, double>)
        checked(LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, job, 'L', N, nullptr, L, nullptr, &w, -1, &iw,
                                    -1),
                "dsyevd");
      else if constexpr (std::is_same_v<T, c64>)
        checked(LAPACKE_cheevd_work(LAPACK_COL_MAJOR, job, 'L', N, nullptr, L, nullptr, &w, -1, &rw,
                                    -1, &iw, -1),
                "cheevd");
      else
        checked(LAPACKE_zheevd_work(LAPACK_COL_MAJOR, job, 'L', N, nullptr, L, nullptr, &w, -1, &rw,
                                    -1, &iw, -1),
                "zheevd");
      ws.work = lwork_of(w);
      ws.iwork = std::max<I>(1, iw);
      if (cx) ws.rwork = static_cast<I>(rw) + 1;
      break;
    }
    case Routine::geqrf_orgqr: {
      // job: 'C' forms all m columns of Q (complete), else min(m, n).
      const lapack_int M = li(m, "geqrf"), N = li(n, "geqrf"), L = std::max(1, M),
                       K = std::min(M, N), Q = job == 'C' ? M : K;
      T w2{};
      if constexpr (std::is_same_v<T, float>) {
        checked(LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, M, N, nullptr, L, nullptr, &w, -1), "sgeqrf");
        checked(LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, M, Q, K, nullptr, L, nullptr, &w2, -1),
                "sorgqr");
      } else if constexpr (std::is_same_v<T, double>) {
        checked(LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, M, N, nullptr, L, nullptr, &w, -1), "dgeqrf");
        checked(LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, M, Q, K, nullptr, L, nullptr, &w2, -1),
                "dorgqr");
      } else if constexpr (std::is_same_v<T, c64>) {
        checked(LAPACKE_cgeqrf_work(LAPACK_COL_MAJOR, M, N, nullptr, L, nullptr, &w, -1), "cgeqrf");
        checked(LAPACKE_cungqr_work(LAPACK_COL_MAJOR, M, Q, K, nullptr, L, nullptr, &w2, -1),
                "cungqr");
      } else {
        checked(LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, M, N, nullptr, L, nullptr, &w, -1), "zgeqrf");
        checked(LAPACKE_zungqr_work(LAPACK_COL_MAJOR, M, Q, K, nullptr, L, nullptr, &w2, -1),
                "zungqr");
      }
      ws.work = std::max(lwork_of(w), lwork_of(w2));
      break;
    }
    case Routine::geev: {
      // job: 'N' eigenvalues only, 'V' also right eigenvectors.
      const lapack_int N = li(n, "geev"), L = std::max(1, N);
      R rdummy[2] = {0, 0};  // ?trevc3's query writes its rwork size there
      if constexpr (std::is_same_v<T, float>)
        checked(LAPACKE_sgeev_work(LAPACK_COL_MAJOR, 'N', job, N, nullptr, L, nullptr, nullptr,
                                   nullptr, 1, nullptr, L, &w, -1),
                "sgeev");
      else if constexpr (std::is_same_v<T, double>)
        checked(LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', job, N, nullptr, L, nullptr, nullptr,
                                   nullptr, 1, nullptr, L, &w, -1),
                "dgeev");
      else if constexpr (std::is_same_v<T, c64>)
        checked(LAPACKE_cgeev_work(LAPACK_COL_MAJOR, 'N', job, N, nullptr, L, nullptr, nullptr, 1,
                                   nullptr, L, &w, -1, rdummy),
                "cgeev");
      else
        checked(LAPACKE_zgeev_work(LAPACK_COL_MAJOR, 'N', job, N, nullptr, L, nullptr, nullptr, 1,
                                   nullptr, L, &w, -1, rdummy),
                "zgeev");
      (void)rdummy;
      ws.work = lwork_of(w);
      ws.rwork = 2 * std::max<I>(1, n);
      break;
    }
    case Routine::geqp3_orgqr: {
      // Reduced Q (min(m, n) columns).
      const lapack_int M = li(m, "geqp3"), N = li(n, "geqp3"), L = std::max(1, M),
                       K = std::min(M, N);
      T w2{};
      if constexpr (std::is_same_v<T, float>) {
        checked(LAPACKE_sgeqp3_work(LAPACK_COL_MAJOR, M, N, nullptr, L, nullptr, nullptr, &w, -1),
                "sgeqp3");
        checked(LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, M, K, K, nullptr, L, nullptr, &w2, -1),
                "sorgqr");
      } else if constexpr (std::is_same_v<T, double>) {
        checked(LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, M, N, nullptr, L, nullptr, nullptr, &w, -1),
                "dgeqp3");
        checked(LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, M, K, K, nullptr, L, nullptr, &w2, -1),
                "dorgqr");
      } else if constexpr (std::is_same_v<T, c64>) {
        checked(LAPACKE_cgeqp3_work(LAPACK_COL_MAJOR, M, N, nullptr, L, nullptr, nullptr, &w, -1,
                                    nullptr),
                "cgeqp3");
        checked(LAPACKE_cungqr_work(LAPACK_COL_MAJOR, M, K, K, nullptr, L, nullptr, &w2, -1),
                "cungqr");
      } else {
        checked(LAPACKE_zgeqp3_work(LAPACK_COL_MAJOR, M, N, nullptr, L, nullptr, nullptr, &w, -1,
                                    nullptr),
                "zgeqp3");
        checked(LAPACKE_zungqr_work(LAPACK_COL_MAJOR, M, K, K, nullptr, L, nullptr, &w2, -1),
                "zungqr");
      }
      ws.work = std::max(lwork_of(w), lwork_of(w2));
      ws.rwork = 2 * std::max<I>(1, n);
      break;
    }
  }
  ws.work = std::max<I>(1, ws.work);
  return ws;
}

}  // namespace

template <class T>
WorkSizes workspace(ExecContext& ctx, Routine r, I m, I n, char job) {
  const WorkKey key{r, dtype_of<T>::value, job, m, n};
  return ctx.cache<WorkCache>().map.get_or_insert(key, [&] { return query<T>(r, m, n, job); });
}

template <class T>
I gesdd(char jobz, I m, I n, T* a, I lda, real_t<T>* s, T* u, I ldu, T* vt, I ldvt,
        const WorkSizes& ws, T* work, real_t<T>* rwork, int* iwork) {
  static constexpr char name[] = {prefix<T>(), 'g', 'e', 's', 'd', 'd', '\0'};
  const lapack_int M = li(m, name), N = li(n, name), LA = li(lda, name), LU = li(ldu, name),
                   LV = li(ldvt, name), LW = li(ws.work, name);
  if constexpr (std::is_same_v<T, float>)
    return checked(
        LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, jobz, M, N, a, LA, s, u, LU, vt, LV, work, LW, iwork),
        name);
  else if constexpr (std::is_same_v<T, double>)
    return checked(
        LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, jobz, M, N, a, LA, s, u, LU, vt, LV, work, LW, iwork),
        name);
  else if constexpr (std::is_same_v<T, c64>)
    return checked(LAPACKE_cgesdd_work(LAPACK_COL_MAJOR, jobz, M, N, a, LA, s, u, LU, vt, LV, work,
                                       LW, rwork, iwork),
                   name);
  else
    return checked(LAPACKE_zgesdd_work(LAPACK_COL_MAJOR, jobz, M, N, a, LA, s, u, LU, vt, LV, work,
                                       LW, rwork, iwork),
                   name);
}

template <class T>
I heevd(char jobz, char uplo, I n, T* a, I lda, real_t<T>* w, const WorkSizes& ws, T* work,
        real_t<T>* rwork, int* iwork) {
  static constexpr char name[] = {prefix<T>(), is_complex_v<T> ? 'h' : 's', 'e', 'e', 'v', 'd', 0};
  const lapack_int N = li(n, name), LA = li(lda, name), LW = li(ws.work, name),
                   LI = li(ws.iwork, name);
  if constexpr (std::is_same_v<T, float>)
    return checked(
        LAPACKE_ssyevd_work(LAPACK_COL_MAJOR, jobz, uplo, N, a, LA, w, work, LW, iwork, LI), name);
  else if constexpr (std::is_same_v<T, double>)
    return checked(
        LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, jobz, uplo, N, a, LA, w, work, LW, iwork, LI), name);
  else if constexpr (std::is_same_v<T, c64>)
    return checked(LAPACKE_cheevd_work(LAPACK_COL_MAJOR, jobz, uplo, N, a, LA, w, work, LW, rwork,
                                       li(ws.rwork, name), iwork, LI),
                   name);
  else
    return checked(LAPACKE_zheevd_work(LAPACK_COL_MAJOR, jobz, uplo, N, a, LA, w, work, LW, rwork,
                                       li(ws.rwork, name), iwork, LI),
                   name);
}

template <class T>
I geqrf(I m, I n, T* a, I lda, T* tau, const WorkSizes& ws, T* work) {
  static constexpr char name[] = {prefix<T>(), 'g', 'e', 'q', 'r', 'f', 0};
  const lapack_int M = li(m, name), N = li(n, name), LA = li(lda, name), LW = li(ws.work, name);
  if constexpr (std::is_same_v<T, float>)
    return checked(LAPACKE_sgeqrf_work(LAPACK_COL_MAJOR, M, N, a, LA, tau, work, LW), name);
  else if constexpr (std::is_same_v<T, double>)
    return checked(LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, M, N, a, LA, tau, work, LW), name);
  else if constexpr (std::is_same_v<T, c64>)
    return checked(LAPACKE_cgeqrf_work(LAPACK_COL_MAJOR, M, N, a, LA, tau, work, LW), name);
  else
    return checked(LAPACKE_zgeqrf_work(LAPACK_COL_MAJOR, M, N, a, LA, tau, work, LW), name);
}

template <class T>
I orgqr(I m, I qcols, I k, T* a, I lda, const T* tau, const WorkSizes& ws, T* work) {
  static constexpr char name[] = {
      prefix<T>(), is_complex_v<T> ? 'u' : 'o', is_complex_v<T> ? 'n' : 'r', 'g', 'q', 'r', 0};
  const lapack_int M = li(m, name), Q = li(qcols, name), K = li(k, name), LA = li(lda, name),
                   LW = li(ws.work, name);
  if constexpr (std::is_same_v<T, float>)
    return checked(LAPACKE_sorgqr_work(LAPACK_COL_MAJOR, M, Q, K, a, LA, tau, work, LW), name);
  else if constexpr (std::is_same_v<T, double>)
    return checked(LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, M, Q, K, a, LA, tau, work, LW), name);
  else if constexpr (std::is_same_v<T, c64>)
    return checked(LAPACKE_cungqr_work(LAPACK_COL_MAJOR, M, Q, K, a, LA, tau, work, LW), name);
  else
    return checked(LAPACKE_zungqr_work(LAPACK_COL_MAJOR, M, Q, K, a, LA, tau, work, LW), name);
}

template <class T>
I potrf(char uplo, I n, T* a, I lda) {
  static constexpr char name[] = {prefix<T>(), 'p', 'o', 't', 'r', 'f', 0};
  const lapack_int N = li(n, name), LA = li(lda, name);
  if constexpr (std::is_same_v<T, float>)
    return checked(LAPACKE_spotrf_work(LAPACK_COL_MAJOR, uplo, N, a, LA), name);
  else if constexpr (std::is_same_v<T, double>)
    return checked(LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, uplo, N, a, LA), name);
  else if constexpr (std::is_same_v<T, c64>)
    return checked(LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, uplo, N, a, LA), name);
  else
    return checked(LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, uplo, N, a, LA), name);
}

template <class T>
I getrf(I n, T* a, I lda, int* ipiv) {
  static constexpr char name[] = {prefix<T>(), 'g', 'e', 't', 'r', 'f', 0};
  const lapack_int N = li(n, name), LA = li(lda, name);
  if constexpr (std::is_same_v<T, float>)
    return checked(LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, N, N, a, LA, ipiv), name);
  else if constexpr (std::is_same_v<T, double>)
    return checked(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, N, N, a, LA, ipiv), name);
  else if constexpr (std::is_same_v<T, c64>)
    return checked(LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, N, N, a, LA, ipiv), name);
  else
    return checked(LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, N, N, a, LA, ipiv), name);
}

template <class T>
I getrf_mn(I m, I n, T* a, I lda, int* ipiv) {
  static constexpr char name[] = {prefix<T>(), 'g', 'e', 't', 'r', 'f', 0};
  const lapack_int M = li(m, name), N = li(n, name), LA = li(lda, name);
  if constexpr (std::is_same_v<T, float>)
    return checked(LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, M, N, a, LA, ipiv), name);
  else if constexpr (std::is_same_v<T, double>)
    return checked(LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, M, N, a, LA, ipiv), name);
  else if constexpr (std::is_same_v<T, c64>)
    return checked(LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, M, N, a, LA, ipiv), name);
  else
    return checked(LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, M, N, a, LA, ipiv), name);
}

template <class T>
I geev(char jobvr, I n, T* a, I lda, std::complex<real_t<T>>* w, T* vr, I ldvr, const WorkSizes& ws,
       T* work, real_t<T>* rwork) {
  static constexpr char name[] = {prefix<T>(), 'g', 'e', 'e', 'v', 0};
  const lapack_int N = li(n, name), LA = li(lda, name), LV = li(ldvr, name), LW = li(ws.work, name);
  if constexpr (!is_complex_v<T>) {
    real_t<T>* wr = rwork;
    real_t<T>* wi = rwork + n;
    I info;
    if constexpr (std::is_same_v<T, float>)
      info = checked(LAPACKE_sgeev_work(LAPACK_COL_MAJOR, 'N', jobvr, N, a, LA, wr, wi, nullptr, 1,
                                        vr, LV, work, LW),
                     name);
    else
      info = checked(LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', jobvr, N, a, LA, wr, wi, nullptr, 1,
                                        vr, LV, work, LW),
                     name);
    for (I i = 0; i < n; ++i) w[i] = std::complex<real_t<T>>(wr[i], wi[i]);
    return info;
  } else if constexpr (std::is_same_v<T, c64>) {
    return checked(LAPACKE_cgeev_work(LAPACK_COL_MAJOR, 'N', jobvr, N, a, LA, w, nullptr, 1, vr, LV,
                                      work, LW, rwork),
                   name);
  } else {
    return checked(LAPACKE_zgeev_work(LAPACK_COL_MAJOR, 'N', jobvr, N, a, LA, w, nullptr, 1, vr, LV,
                                      work, LW, rwork),
                   name);
  }
}

template <class T>
I geqp3(I m, I n, T* a, I lda, int* jpvt, T* tau, const WorkSizes& ws, T* work, real_t<T>* rwork) {
  static constexpr char name[] = {prefix<T>(), 'g', 'e', 'q', 'p', '3', 0};
  const lapack_int M = li(m, name), N = li(n, name), LA = li(lda, name), LW = li(ws.work, name);
  if constexpr (std::is_same_v<T, float>)
    return checked(LAPACKE_sgeqp3_work(LAPACK_COL_MAJOR, M, N, a, LA, jpvt, tau, work, LW), name);
  else if constexpr (std::is_same_v<T, double>)
    return checked(LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, M, N, a, LA, jpvt, tau, work, LW), name);
  else if constexpr (std::is_same_v<T, c64>)
    return checked(LAPACKE_cgeqp3_work(LAPACK_COL_MAJOR, M, N, a, LA, jpvt, tau, work, LW, rwork),
                   name);
  else
    return checked(LAPACKE_zgeqp3_work(LAPACK_COL_MAJOR, M, N, a, LA, jpvt, tau, work, LW, rwork),
                   name);
}

template <class T>
I getrs(char trans, I n, I nrhs, const T* a, I lda, const int* ipiv, T* b, I ldb) {
  static constexpr char name[] = {prefix<T>(), 'g', 'e', 't', 'r', 's', 0};
  const lapack_int N = li(n, name), R = li(nrhs, name), LA = li(lda, name), LB = li(ldb, name);
  if constexpr (std::is_same_v<T, float>)
    return checked(LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, trans, N, R, a, LA, ipiv, b, LB), name);
  else if constexpr (std::is_same_v<T, double>)
    return checked(LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, trans, N, R, a, LA, ipiv, b, LB), name);
  else if constexpr (std::is_same_v<T, c64>)
    return checked(LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, trans, N, R, a, LA, ipiv, b, LB), name);
  else
    return checked(LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, trans, N, R, a, LA, ipiv, b, LB), name);
}

#define TENFERRO_LAPACK_INSTANTIATE(T)                                                           \
  template WorkSizes workspace<T>(ExecContext&, Routine, I, I, char);                            \
  template I gesdd<T>(char, I, I, T*, I, real_t<T>*, T*, I, T*, I, const WorkSizes&, T*,         \
                      real_t<T>*, int*);                                                         \
  template I heevd<T>(char, char, I, T*, I, real_t<T>*, const WorkSizes&, T*, real_t<T>*, int*); \
  template I geqrf<T>(I, I, T*, I, T*, const WorkSizes&, T*);                                    \
  template I orgqr<T>(I, I, I, T*, I, const T*, const WorkSizes&, T*);                           \
  template I potrf<T>(char, I, T*, I);                                                           \
  template I getrf<T>(I, T*, I, int*);                                                           \
  template I getrf_mn<T>(I, I, T*, I, int*);                                                     \
  template I geev<T>(char, I, T*, I, std::complex<real_t<T>>*, T*, I, const WorkSizes&, T*,      \
                     real_t<T>*);                                                                \
  template I geqp3<T>(I, I, T*, I, int*, T*, const WorkSizes&, T*, real_t<T>*);                  \
  template I getrs<T>(char, I, I, const T*, I, const int*, T*, I);
TENFERRO_LAPACK_INSTANTIATE(float)
TENFERRO_LAPACK_INSTANTIATE(double)
TENFERRO_LAPACK_INSTANTIATE(c64)
TENFERRO_LAPACK_INSTANTIATE(c128)
#undef TENFERRO_LAPACK_INSTANTIATE

}  // namespace tenferro::detail::linalg
