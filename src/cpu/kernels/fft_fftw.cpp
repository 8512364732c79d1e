// FFTW behind the FFT primitives (Note [FFTW plans] in fft_fftw.hpp).
#include "cpu/kernels/fft_fftw.hpp"

#include <fftw3.h>

#include <complex>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "core/alloc.hpp"
#include "core/strided.hpp"
#include "cpu/bounded_cache.hpp"
#include "tenferro/error.hpp"

namespace tenferro::detail {
namespace {

using I = std::int64_t;

// The one planner lock (Note [FFTW plans]). Never destroyed: engines (and their plan caches)
// may be torn down during static destruction.
std::mutex& planner_mutex() {
  static auto* m = new std::mutex;
  return *m;
}

// An owned fftw_plan or fftwf_plan; destroyed under the planner lock.
struct Plan {
  void* p = nullptr;
  bool single = false;
  Plan(void* plan, bool s) : p(plan), single(s) {}
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    if (single)
      fftwf_destroy_plan(static_cast<fftwf_plan>(p));
    else
      fftw_destroy_plan(static_cast<fftw_plan>(p));
  }
};

struct PlanKey {
  FftKind kind;
  bool single;
  int align_in, align_out;
  // n, is, os, then (size, is, os) per batch dimension (inline up to rank 4: no heap use)
  SmallVector<I, 12> dims;
  bool operator==(const PlanKey&) const = default;
};
struct PlanKeyHash {
  std::size_t operator()(const PlanKey& k) const noexcept {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(static_cast<std::uint64_t>(k.kind));
    mix(k.single);
    mix(static_cast<std::uint64_t>(k.align_in));
    mix(static_cast<std::uint64_t>(k.align_out));
    for (I d : k.dims) mix(static_cast<std::uint64_t>(d));
    return static_cast<std::size_t>(h);
  }
};

struct FftPlanCache {
  BoundedCache<PlanKey, std::shared_ptr<Plan>, PlanKeyHash> map{64};
  void clear() { map.clear(); }
};

template <class R>
struct Fftw;
template <>
struct Fftw<double> {
  using plan = fftw_plan;
  using cx = fftw_complex;
  using iodim = fftw_iodim64;
  static int align(void* p) { return fftw_alignment_of(static_cast<double*>(p)); }
  static plan dft(int rank, const iodim* d, int hr, const iodim* h, void* in, void* out, int sign,
                  unsigned f) {
    return fftw_plan_guru64_dft(rank, d, hr, h, static_cast<cx*>(in), static_cast<cx*>(out), sign,
                                f);
  }
  static plan r2c(int rank, const iodim* d, int hr, const iodim* h, void* in, void* out,
                  unsigned f) {
    return fftw_plan_guru64_dft_r2c(rank, d, hr, h, static_cast<double*>(in), static_cast<cx*>(out),
                                    f);
  }
  static plan c2r(int rank, const iodim* d, int hr, const iodim* h, void* in, void* out,
                  unsigned f) {
    return fftw_plan_guru64_dft_c2r(rank, d, hr, h, static_cast<cx*>(in), static_cast<double*>(out),
                                    f);
  }
  static void exec(void* p, FftKind k, void* in, void* out) {
    auto pl = static_cast<plan>(p);
    if (k == FftKind::r2c)
      fftw_execute_dft_r2c(pl, static_cast<double*>(in), static_cast<cx*>(out));
    else if (k == FftKind::c2r)
      fftw_execute_dft_c2r(pl, static_cast<cx*>(in), static_cast<double*>(out));
    else
      fftw_execute_dft(pl, static_cast<cx*>(in), static_cast<cx*>(out));
  }
};
template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using cx = fftwf_complex;
  using iodim = fftwf_iodim64;
  static int align(void* p) { return fftwf_alignment_of(static_cast<float*>(p)); }
  static plan dft(int rank, const iodim* d, int hr, const iodim* h, void* in, void* out, int sign,
                  unsigned f) {
    return fftwf_plan_guru64_dft(rank, d, hr, h, static_cast<cx*>(in), static_cast<cx*>(out), sign,
                                 f);
  }
  static plan r2c(int rank, const iodim* d, int hr, const iodim* h, void* in, void* out,
                  unsigned f) {
    return fftwf_plan_guru64_dft_r2c(rank, d, hr, h, static_cast<float*>(in), static_cast<cx*>(out),
                                     f);
  }
  static plan c2r(int rank, const iodim* d, int hr, const iodim* h, void* in, void* out,
                  unsigned f) {
    return fftwf_plan_guru64_dft_c2r(rank, d, hr, h, static_cast<cx*>(in), static_cast<float*>(out),
                                     f);
  }
  static void exec(void* p, FftKind k, void* in, void* out) {
    auto pl = static_cast<plan>(p);
    if (k == FftKind::r2c)
      fftwf_execute_dft_r2c(pl, static_cast<float*>(in), static_cast<cx*>(out));
    else if (k == FftKind::c2r)
      fftwf_execute_dft_c2r(pl, static_cast<cx*>(in), static_cast<float*>(out));
    else
      fftwf_execute_dft(pl, static_cast<cx*>(in), static_cast<cx*>(out));
  }
};

template <class R>
void run(ExecContext& ctx, FftKind kind, const Tensor& x, Tensor& out, I axis, I n, double scale,
         const char* op) {
  using F = Fftw<R>;
  const Dims& shape = x.shape();
  // FFTW reads strided input directly when every stride is positive; c2r destroys its input and
  // other layouts (negative or zero strides) are copied into contiguous scratch first.
  bool copy = kind == FftKind::c2r;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 1 && x.strides()[d] <= 0) copy = true;
  StoragePtr scratch;  // from the engine's pool, as the op's output
  void* in = x.data_ptr();
  Dims is(x.strides().begin(), x.strides().end());
  if (copy) {
    scratch = StoragePtr(ctx.allocate(checked_bytes(x.numel(), x.dtype(), op)));
    copy_to_contiguous(x, scratch->data, x.dtype());
    in = scratch->data;
    is = contiguous_strides(shape);
  }
  const Dims os = contiguous_strides(out.shape());
  const std::size_t a = static_cast<std::size_t>(axis);
  PlanKey key{kind, std::is_same_v<R, float>, F::align(in), F::align(out.data_ptr()), {}};
  for (I v : {n, is[a], os[a]}) key.dims.push_back(v);
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (d != a && shape[d] != 1)
      for (I v : {shape[d], is[d], os[d]}) key.dims.push_back(v);
  auto& cache = ctx.cache<FftPlanCache>().map;
  std::shared_ptr<Plan>* found = cache.find(key);
  std::shared_ptr<Plan> plan = found ? *found : nullptr;
  if (!plan) {
    typename F::iodim dim{n, is[a], os[a]};
    std::vector<typename F::iodim> batch;
    for (std::size_t k = 3; k < key.dims.size(); k += 3)
      batch.push_back({key.dims[k], key.dims[k + 1], key.dims[k + 2]});
    const int hr = static_cast<int>(batch.size());
    void* plan_ptr = nullptr;
    {
      std::lock_guard<std::mutex> lock(planner_mutex());
      // FFTW_ESTIMATE never touches the arrays (Note [FFTW plans]).
      switch (kind) {
        case FftKind::forward:
        case FftKind::backward:
          plan_ptr = F::dft(1, &dim, hr, batch.data(), in, out.data_ptr(),
                            kind == FftKind::forward ? FFTW_FORWARD : FFTW_BACKWARD,
                            FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
          break;
        case FftKind::r2c:
          plan_ptr = F::r2c(1, &dim, hr, batch.data(), in, out.data_ptr(),
                            FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
          break;
        case FftKind::c2r:
          plan_ptr = F::c2r(1, &dim, hr, batch.data(), in, out.data_ptr(),
                            FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
          break;
      }
    }
    if (!plan_ptr)
      throw Error(ErrorKind::BackendFailure, std::string(op) + ": FFTW could not plan a length-" +
                                                 std::to_string(n) + " transform of shape " +
                                                 dims_to_string(shape));
    plan = std::make_shared<Plan>(plan_ptr, std::is_same_v<R, float>);
    cache.insert(std::move(key), plan);
  }
  F::exec(plan->p, kind, in, out.data_ptr());
  if (scale != 1.0) {
    R* o = static_cast<R*>(out.data_ptr());
    const I count = out.numel() * (kind == FftKind::c2r ? 1 : 2);
    const R s = static_cast<R>(scale);
    for (I i = 0; i < count; ++i) o[i] *= s;
  }
}

}  // namespace

void fft_kernel(ExecContext& ctx, FftKind kind, const Tensor& in, Tensor& out, std::int64_t axis,
                std::int64_t n, double scale, const char* op) {
  if (in.numel() == 0 || out.numel() == 0) return;
  if (is_double_precision(in.dtype()))
    run<double>(ctx, kind, in, out, axis, n, scale, op);
  else
    run<float>(ctx, kind, in, out, axis, n, scale, op);
}

}  // namespace tenferro::detail
