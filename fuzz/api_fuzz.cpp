// libFuzzer target: the public op API on hostile shapes, strides, offsets, dtypes, axes and
// parameters (docs/errors.md, "Limits"; docs/einsum.md, "Fuzzing").
//
// The input bytes are decoded into a short program over a pool of tensor slots: factories, views
// made through the public Tensor constructor over a storage (random strides and offsets),
// wrap_contiguous, every public op family (elementwise, _into, reductions, structural views and
// joins, diagonals, contractions, einsum, einsum_path, prepare_einsum), element access, printing,
// allclose, a backward pass and a prepared trace. Values come mostly small, sometimes extreme
// (0-sized, 2^31, 2^61, INT64_MAX, INT64_MIN, negative). The only allowed outcomes of a call are a
// result or a tenferro::Error; anything else -- another exception, a sanitizer report, a crash, a
// broken invariant below (__builtin_trap) -- is a finding. Results are checked where it is
// cheap: shapes against the documented rules, views against the bounds of their storage.
//
// Work is bounded so that each input runs in milliseconds: the process-wide allocation limit is
// 1 MiB (Note [Byte counts]: larger outputs fail fast with OutOfMemory), and ops whose work is
// not bounded by their output (reductions, contractions, einsum) run only on small operands.
// The library is compiled with -fsanitize=fuzzer-no-link,address,undefined (fuzz/CMakeLists.txt).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/alloc.hpp"
#include "tenferro/tenferro.hpp"

namespace {

using namespace tenferro;
using I = std::int64_t;

constexpr I kMax = std::numeric_limits<I>::max();
constexpr I kMin = std::numeric_limits<I>::min();
constexpr I kSmallWork = 1 << 12;  // elements an unbounded-work op may read per operand

void require(bool ok) {
  if (!ok) __builtin_trap();
}

class Bytes {
 public:
  Bytes(const std::uint8_t* p, std::size_t n) : p_(p), n_(n) {}
  bool empty() const { return n_ == 0; }
  std::uint8_t u8() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | u8();
    return v;
  }
  bool flag() { return u8() & 1; }
  // Mostly small, sometimes extreme.
  I dim() {
    const std::uint8_t b = u8();
    if (b < 224) return b % 5;
    static constexpr I kExtreme[] = {0,          1,    7,        I{1} << 31, I{1} << 32, I{1} << 61,
                                     I{1} << 62, kMax, -1,       -2,         kMin,       3,
                                     I{1} << 20, 64,   kMax / 8, 1000};
    return kExtreme[b % 16];
  }
  I param() {  // start/stop/offset/k and the like
    const std::uint8_t b = u8();
    if (b < 200) return static_cast<I>(b % 17) - 8;
    static constexpr I kExtreme[] = {kMax,       kMin,          kMax - 1,  kMin + 1,
                                     I{1} << 62, -(I{1} << 62), I{1} << 31};
    return b % 8 == 7 ? static_cast<I>(u64()) : kExtreme[b % 7];
  }
  I axis(I rank) {
    const std::uint8_t b = u8();
    if (b < 230) return static_cast<I>(b % (2 * rank + 3)) - rank - 1;
    return b & 1 ? kMax : kMin;
  }
  I stride() {
    const std::uint8_t b = u8();
    if (b < 200) return static_cast<I>(b % 9) - 4;
    static constexpr I kExtreme[] = {kMax, kMin, I{1} << 62, -(I{1} << 62), I{1} << 31, 1000};
    return kExtreme[b % 6];
  }
  // Every dtype (the small integers too: their kernels are the ones least exercised elsewhere).
  DType dtype() {
    static constexpr DType kD[] = {DType::f64, DType::f32, DType::c64, DType::c128, DType::boolean,
                                   DType::i32, DType::i64, DType::i8,  DType::i16,  DType::u8,
                                   DType::u16, DType::u32, DType::u64};
    return kD[u8() % std::size(kD)];
  }
  // Views over raw bytes: any dtype but bool, whose bytes must be 0 or 1 (tensor.hpp).
  DType view_dtype() {
    const DType d = dtype();
    return d == DType::boolean ? DType::i32 : d;
  }
  Dims shape(std::size_t max_rank = 4) {
    Dims s;
    const std::size_t r = u8() % (max_rank + 1);
    for (std::size_t i = 0; i < r; ++i) s.push_back(dim());
    return s;
  }
  Dims axes(I rank) {
    Dims a;
    const std::size_t n = u8() % 4;
    for (std::size_t i = 0; i < n; ++i) a.push_back(axis(rank));
    return a;
  }
  double real() {
    const std::uint8_t b = u8();
    static constexpr double kV[] = {0.0, 1.0, -1.0, 0.5, 2.0, 1e30, -1e30, 1e308, 1e-300};
    if (b < 240) return static_cast<double>(static_cast<int>(b % 21) - 10) / 2.0;
    if (b < 250) return kV[b % 9];
    const double special[] = {std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity(),
                              -0.0,
                              1e-320,
                              3.0};
    return special[b % 6];
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
};

// ---- reference rules (128-bit where sizes multiply) ----

bool valid_shape(std::span<const I> shape) {
  __int128 n = 1;
  for (I d : shape) {
    if (d < 0) return false;
    if (d > 0) n *= d;
    if (n > kMax) return false;
  }
  return true;
}

I numel_of(std::span<const I> shape) {  // shape valid
  I n = 1;
  for (I d : shape) n *= d;
  return n;
}

// The public constructor's contract (tensor.hpp), recomputed independently.
bool view_fits(const StoragePtr& s, const Dims& shape, const Dims& strides, I offset, DType dt) {
  if (!s || strides.size() != shape.size() || !valid_shape(shape)) return false;
  const __int128 cap = std::min<__int128>(static_cast<__int128>(s->bytes / dtype_size(dt)), kMax);
  if (offset < 0 || offset > cap) return false;
  if (numel_of(shape) == 0) return true;
  __int128 lo = offset, hi = offset;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const __int128 ext = static_cast<__int128>(shape[i] - 1) * strides[i];
    (ext < 0 ? lo : hi) += ext;
  }
  return lo >= 0 && hi < cap;
}

bool broadcast_shape(const Dims& a, const Dims& b, Dims& out) {
  const std::size_t r = std::max(a.size(), b.size());
  out.assign(r, 1);
  for (std::size_t i = 0; i < r; ++i) {
    const I x = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const I y = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    out[i] = x == 1 ? y : x;
  }
  return true;
}

// NumPy's rule in 128-bit arithmetic: negative bounds count from the end, then clamp to [0, n]
// (step > 0) or [-1, n - 1] (step < 0).
I slice_count(I n, I start, I stop, I step) {
  const __int128 lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
  auto clamp = [&](I v) {
    const __int128 w = v < 0 ? static_cast<__int128>(v) + n : v;
    return std::clamp<__int128>(w, lo, hi);
  };
  const __int128 a = clamp(start), b = clamp(stop), st = step;
  if (step > 0) return b > a ? static_cast<I>((b - a + st - 1) / st) : 0;
  return a > b ? static_cast<I>((a - b - st - 1) / -st) : 0;
}

// Reads every element of a small tensor through at<T>() (checks the view against ASan).
void touch(const Tensor& t) {
  if (!t.defined() || !t.has_storage() || t.numel() > kSmallWork) return;
  visit_dtype(t.dtype(), [&](auto z) {
    using T = decltype(z);
    std::vector<T> v = t.to_vector<T>();
    require(static_cast<I>(v.size()) == t.numel());
  });
}

bool small(const Tensor& t) { return t.defined() && t.numel() <= kSmallWork; }

// One inline (1-thread) backend for everything: deterministic and cheap per call.
const CpuBackend& backend() {
  static const CpuBackend* cpu = new CpuBackend(CpuBackendOptions{.threads = 1});
  return *cpu;
}

// ---- the program ----

struct State {
  std::vector<Tensor> slot;
  Tensor& pick(Bytes& in) { return slot[in.u8() % slot.size()]; }
  void put(Bytes& in, Tensor t) {
    touch(t);
    slot[in.u8() % slot.size()] = std::move(t);
  }
};

Tensor factory(Bytes& in) {
  const Dims shape = in.shape();
  const DType dt = in.dtype();
  switch (in.u8() % 11) {
    case 0:
      return zeros(shape, dt);
    case 1:
      return ones(shape, dt);
    case 2:
      return full(shape, Scalar(in.real(), in.flag() ? in.real() : 0.0), dt);
    case 3:
      return rand(shape, in.u64(), dt);
    case 4:
      return randn(shape, in.u64(), dt);
    case 5: {
      const double start = in.real(), stop = in.real(), step = in.real();
      return arange(start, stop, step, dt);
    }
    case 6:
      return arange(in.param(), dt);
    case 7:
      return scalar_tensor(Scalar(in.real(), 0.0), dt);
    case 8:
      return from_values({1, 2, 3, 4, 5, 6}, shape, dt);
    case 9:
      return from_vector(std::vector<float>(static_cast<std::size_t>(in.u8() % 9), 1.5f), shape);
    default:
      return Tensor::empty(shape, dt);
  }
}

// A view through the public constructor or wrap_contiguous over some storage.
Tensor over_storage(Bytes& in, State& st) {
  StoragePtr storage;
  switch (in.u8() % 4) {
    case 0:
      storage = StoragePtr(heap_storage(static_cast<std::size_t>(in.u8()) * 4));
      std::fill_n(static_cast<char*>(storage->data), storage->bytes, 0);
      break;
    case 1:
      break;  // null
    default:
      storage = st.pick(in).storage();
  }
  const DType dt = in.view_dtype();
  const Dims shape = in.shape();
  if (in.flag()) {
    Tensor t;
    try {
      t = Tensor::wrap_contiguous(storage, shape, dt);
    } catch (const Error& e) {
      require(e.kind() == ErrorKind::InvalidArgument);
      require(!view_fits(storage, shape, contiguous_strides(shape), 0, dt));
      throw;
    }
    require(view_fits(storage, shape, t.strides(), 0, dt));
    return t;
  }
  Dims strides;
  for (std::size_t i = 0; i < shape.size(); ++i) strides.push_back(in.stride());
  if (in.u8() % 8 == 0) strides.push_back(1);  // rank mismatch
  const I offset = in.u8() < 200 ? in.u8() % 8 : in.param();
  const bool fits = view_fits(storage, shape, strides, offset, dt);
  try {
    Tensor t(storage, shape, strides, offset, dt);
    require(fits);  // accepted => every addressed element lies inside the storage
    return t;
  } catch (const Error& e) {
    require(!fits && e.kind() == ErrorKind::InvalidArgument);
    throw;
  }
}

Tensor unary(Bytes& in, const Tensor& x) {
  switch (in.u8() % 18) {
    case 0:
      return neg(x);
    case 1:
      return conj(x);
    case 2:
      return abs(x);
    case 3:
      return sign(x);
    case 4:
      return square(x);
    case 5:
      return exp(x);
    case 6:
      return log(x);
    case 7:
      return sin(x);
    case 8:
      return cos(x);
    case 9:
      return tanh(x);
    case 10:
      return sqrt(x);
    case 11:
      return rsqrt(x);
    case 12:
      return expm1(x);
    case 13:
      return log1p(x);
    case 14:
      return cast(x, in.dtype());
    case 15:
      return convert(x, in.dtype());
    case 16:
      return copy(x);
    default:
      return contiguous(x);
  }
}

Tensor binary(Bytes& in, const Tensor& a, const Tensor& b) {
  Dims want;
  const bool fits = a.defined() && b.defined() && broadcast_shape(a.shape(), b.shape(), want);
  Tensor r;
  const int op = in.u8() % 15;
  switch (op) {
    case 0:
      r = add(a, b);
      break;
    case 1:
      r = sub(a, b);
      break;
    case 2:
      r = mul(a, b);
      break;
    case 3:
      r = div(a, b);
      break;
    case 4:
      r = maximum(a, b);
      break;
    case 5:
      r = minimum(a, b);
      break;
    case 6:
      r = pow(a, b);
      break;
    case 7:
      r = eq(a, b);
      break;
    case 8:
      r = lt(a, b);
      break;
    case 9:
      r = where(a, b, a);
      break;
    case 10:
      r = add(a, Scalar(in.real(), in.flag() ? 1.0 : 0.0));
      break;
    case 11:
      r = div(Scalar(in.real(), 0.0), b);
      break;
    case 12:
      r = pow(a, Scalar(in.real(), 0.0));
      break;
    case 13:
      r = maximum(a, Scalar(in.real(), 0.0));
      break;
    default:
      r = ge(b, a);
      break;
  }
  if (op <= 9 || op == 14) {
    require(fits);
    require(r.shape() == want);
  }
  return r;
}

void into(Bytes& in, State& st) {
  Tensor& out = st.pick(in);
  const Tensor a = st.pick(in), b = st.pick(in);
  const bool snapshot =
      out.defined() && out.has_storage() && out.numel() <= kSmallWork && out.dtype() == DType::f64;
  std::vector<double> before;
  if (snapshot) before = out.to_vector<double>();
  try {
    switch (in.u8() % 8) {
      case 0:
        add_into(out, a, b);
        break;
      case 1:
        mul_into(out, a, Scalar(in.real(), 0.0));
        break;
      case 2:
        sub_into(out, a, b);
        break;
      case 3:
        exp_into(out, a);
        break;
      case 4:
        neg_into(out, a);
        break;
      case 5:
        maximum_into(out, a, b);
        break;
      case 6:
        pow_into(out, a, Scalar(2.0, 0.0));
        break;
      default:
        abs_into(out, a);
        break;
    }
  } catch (const Error&) {
    if (snapshot) {  // Note [Writing into an existing tensor]: nothing written on error
      const std::vector<double> after = out.to_vector<double>();
      require(after.size() == before.size());
      for (std::size_t i = 0; i < after.size(); ++i)
        require(after[i] == before[i] || (after[i] != after[i] && before[i] != before[i]));
    }
    throw;
  }
}

Tensor reduction(Bytes& in, const Tensor& x) {
  if (!small(x)) return x;  // work is the input's size, not the output's
  const Dims axes = in.axes(x.rank());
  const bool keep = in.flag();
  Tensor r;
  switch (in.u8() % 7) {
    case 0:
      r = sum(x, axes, keep);
      break;
    case 1:
      r = prod(x, axes, keep);
      break;
    case 2:
      r = mean(x, axes, keep);
      break;
    case 3:
      r = max(x, axes, keep);
      break;
    case 4:
      r = min(x, axes, keep);
      break;
    case 5:
      r = sum_squares(x, axes, keep);
      break;
    default:
      r = norm(x, axes, keep);
      break;
  }
  // Shape rule: reduced axes removed (kept as 1 with keepdims); no axes = all.
  const I rank = x.rank();
  std::vector<bool> red(static_cast<std::size_t>(rank), axes.empty());
  for (I a : axes) red[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
  Dims want;
  for (I d = 0; d < rank; ++d) {
    if (!red[static_cast<std::size_t>(d)])
      want.push_back(x.shape()[static_cast<std::size_t>(d)]);
    else if (keep)
      want.push_back(1);
  }
  require(r.shape() == want);
  return r;
}

Tensor view(Bytes& in, const Tensor& x) {
  switch (in.u8() % 12) {
    case 0: {
      Dims target = in.shape();
      if (in.flag() && !target.empty()) target[in.u8() % target.size()] = -1;
      Tensor r = reshape(x, target);
      require(r.numel() == x.numel());
      return r;
    }
    case 1: {
      Dims axes;
      for (I i = 0; i < x.rank(); ++i) axes.push_back(i);
      std::reverse(axes.begin(), axes.end());
      if (in.flag() && !axes.empty()) axes[in.u8() % axes.size()] = in.axis(x.rank());
      if (in.flag()) axes.push_back(0);
      Tensor r = permute(x, axes);
      require(r.numel() == x.numel() && r.rank() == x.rank());
      return r;
    }
    case 2:
      return transpose(x, in.axis(x.rank()), in.axis(x.rank()));
    case 3: {
      const I axis = in.axis(x.rank()), start = in.param(), stop = in.param(), step = in.param();
      Tensor r = slice(x, axis, start, stop, step);
      const I a = axis < 0 ? axis + x.rank() : axis;
      require(r.shape()[static_cast<std::size_t>(a)] ==
              slice_count(x.shape()[static_cast<std::size_t>(a)], start, stop, step));
      return r;
    }
    case 4: {
      Dims target = x.shape();
      const std::size_t lead = in.u8() % 3;
      for (std::size_t i = 0; i < lead; ++i) target.insert(0, in.dim());
      for (I& d : target)
        if (d == 1 && in.flag()) d = in.dim();
      Tensor r = broadcast_to(x, target);
      require(r.shape() == target);
      return r;
    }
    case 5:
      return squeeze(x, in.axis(x.rank()));
    case 6:
      return unsqueeze(x, in.axis(x.rank() + 1));
    case 7:
      return diagonal(x, in.param());
    case 8:
      return diag_embed(x, in.param());
    case 9:
      return tril(x, in.param());
    case 10:
      return triu(x, in.param());
    default:
      return x.expand(in.shape());
  }
}

Tensor join(Bytes& in, State& st) {
  std::vector<Tensor> parts;
  const std::size_t n = in.u8() % 4;
  for (std::size_t i = 0; i < n; ++i) parts.push_back(st.pick(in));
  const I axis = in.axis(parts.empty() ? 1 : parts[0].rank());
  if (in.flag()) return stack(parts, axis);
  return concatenate(parts, axis);
}

bool contract_small(const Tensor& a, const Tensor& b) {
  return small(a) && small(b) && static_cast<__int128>(a.numel()) * b.numel() <= (I{1} << 20);
}

Tensor contraction(Bytes& in, const Tensor& a, const Tensor& b) {
  if (!contract_small(a, b)) return a;  // work is up to numel(a) * numel(b)
  switch (in.u8() % 8) {
    case 0:
      return matmul(a, b);
    case 1:
      return bmm(a, b);
    case 2: {
      DotDims d;
      for (Dims* list : {&d.lhs_batch, &d.rhs_batch, &d.lhs_contract, &d.rhs_contract}) {
        const std::size_t k = in.u8() % 3;
        for (std::size_t i = 0; i < k; ++i) list->push_back(in.axis(2));
      }
      return dot_general(a, b, d);
    }
    case 3:
      return tensordot(a, b, in.param());
    case 4:
      return tensordot(a, b, in.axes(a.rank()), in.axes(b.rank()));
    case 5:
      return outer(a, b);
    case 6:
      return inner(a, b);
    default:
      return vdot(a, b);
  }
}

// A spec from the bytes: letters from a small alphabet, commas, '...', '->'.
std::string spec_from(Bytes& in) {
  static constexpr char kAlphabet[] = "abcdij,,.->  A";
  std::string s;
  const std::size_t n = in.u8() % 12;
  for (std::size_t i = 0; i < n; ++i) s += kAlphabet[in.u8() % (sizeof kAlphabet - 1)];
  return s;
}

Tensor run_einsum(Bytes& in, State& st) {
  std::vector<Tensor> ops;
  const std::size_t n = 1 + in.u8() % 3;
  for (std::size_t i = 0; i < n; ++i) ops.push_back(st.pick(in));
  EinsumOptions o;
  const std::uint8_t b = in.u8();
  if (b & 1) o.strategy = static_cast<EinsumStrategy>(b % 5);
  if (b & 2) o.memory_limit = in.real();
  if (b & 4) o.optimal_limit = static_cast<int>(in.param() % 20);
  static const char* kSpecs[] = {
      "ij,jk->ik",    "ii->i",        "ij->",    "...ij,...jk->...ik", "i,i->",
      "ij,jk,kl->il", "ab,bc,cd->ad", "i,j->ij", "ijk->kji",           "ii"};
  const std::string spec = in.flag() ? spec_from(in) : kSpecs[in.u8() % 10];
  std::vector<Dims> shapes;
  for (const Tensor& t : ops) shapes.push_back(t.defined() ? t.shape() : Dims{});
  if (in.u8() % 4 == 0) {  // shapes only: the path must be sane
    for (Dims& s : shapes)
      if (!s.empty() && in.flag()) s[in.u8() % s.size()] = in.dim();
    EinsumPath p = einsum_path(spec, shapes, o);
    require(p.flops >= 0 && p.naive_flops >= 0 && p.largest_intermediate >= 0);
    return Tensor();
  }
  for (const Tensor& t : ops)
    if (!small(t)) return Tensor();
  const EinsumPath p = einsum_path(spec, shapes, o);
  if (!(p.naive_flops <= 1e6)) return Tensor();  // bounded work
  if (in.u8() % 3 == 0) {  // a prepared plan, run on the operands it was prepared for
    std::vector<DType> dtypes;
    for (const Tensor& t : ops) dtypes.push_back(t.dtype());
    const EinsumPlan plan = prepare_einsum(spec, shapes, dtypes, o);
    Tensor r = plan(ops);
    require(r.shape() == plan.output_shape() && r.dtype() == plan.output_dtype());
    return r;
  }
  return einsum(spec, ops, o);
}

void access(Bytes& in, State& st) {
  Tensor& t = st.pick(in);
  Dims index;
  const std::size_t n = in.u8() % 4;
  for (std::size_t i = 0; i < n; ++i) index.push_back(in.u8() < 200 ? in.u8() % 4 : in.param());
  switch (in.u8() % 6) {
    case 0:
      visit_dtype(t.dtype(), [&](auto z) { (void)t.at<decltype(z)>(index); });
      break;
    case 1:
      visit_dtype(t.dtype(), [&](auto z) { t.set<decltype(z)>(index, decltype(z)(1)); });
      break;
    case 2:
      visit_dtype(t.dtype(), [&](auto z) { (void)t.item<decltype(z)>(); });
      break;
    case 3: {
      const std::string s = t.to_string();
      require(!s.empty() && s.size() < (std::size_t{1} << 20));
      break;
    }
    case 4:
      (void)allclose(t, st.pick(in), in.real(), in.real());
      break;
    default:
      (void)t.size(in.axis(t.rank()));
      break;
  }
}

void autodiff(Bytes& in, State& st) {
  Tensor x = st.pick(in);
  if (!small(x) || !x.has_storage() || is_complex(x.dtype())) return;
  Tensor leaf = copy(x).requires_grad_();
  Tensor y = unary(in, leaf);
  if (in.flag()) y = view(in, y);
  if (!small(y)) return;
  if (is_complex(y.dtype())) y = cast(y, DType::f64);  // a real loss
  Tensor loss = sum(y);
  backward(loss);
  const Tensor g = leaf.grad();
  require(!g.defined() || g.shape() == leaf.shape());
}

void traced(Bytes& in, State& st) {
  Tensor x = st.pick(in);
  if (!x.defined() || !small(x)) return;
  const std::uint8_t which = in.u8();
  const I p1 = in.param();
  Dims target = in.shape();
  Program prog = trace(
      [&](std::span<const Tensor> a) {
        Tensor y = a[0];
        switch (which % 5) {
          case 0:
            y = exp(y);
            break;
          case 1:
            y = slice(y, 0, p1, kMax, 1 + (p1 & 3));
            break;
          case 2:
            y = broadcast_to(y, target);
            break;
          case 3:
            y = sum(y);
            break;
          default:
            y = add(transpose(y), 1.0);
            break;
        }
        return std::vector<Tensor>{y};
      },
      {ValueSpec{x.shape(), x.dtype()}});
  static Runtime* rt = new Runtime(backend());
  PreparedProgram pp = rt->prepare(prog);
  std::vector<Tensor> out = rt->run(pp, {x});
  require(out.size() == 1);
  touch(out[0]);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tenferro::detail::set_allocation_limit(std::size_t{1} << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tenferro;
  BackendGuard use(backend());
  Bytes in(data, size);
  State st;
  st.slot.assign(4, Tensor());
  st.slot[0] = arange(6);
  st.slot[1] = ones({2, 3}, DType::f32);
  st.slot[2] = broadcast_to(scalar_tensor(2.0), {3, 1, 2});
  for (int step = 0; step < 24 && !in.empty(); ++step) {
    try {
      switch (in.u8() % 13) {
        case 0:
          st.put(in, factory(in));
          break;
        case 1:
          st.put(in, over_storage(in, st));
          break;
        case 2:
          st.put(in, unary(in, st.pick(in)));
          break;
        case 3: {
          const Tensor a = st.pick(in), b = st.pick(in);
          st.put(in, binary(in, a, b));
          break;
        }
        case 4:
          into(in, st);
          break;
        case 5:
          st.put(in, reduction(in, st.pick(in)));
          break;
        case 6:
          st.put(in, view(in, st.pick(in)));
          break;
        case 7:
          st.put(in, join(in, st));
          break;
        case 8: {
          const Tensor a = st.pick(in), b = st.pick(in);
          st.put(in, contraction(in, a, b));
          break;
        }
        case 9:
          st.put(in, run_einsum(in, st));
          break;
        case 10:
          access(in, st);
          break;
        case 11:
          autodiff(in, st);
          break;
        default:
          traced(in, st);
          break;
      }
    } catch (const Error& e) {
      require(!e.message().empty());
    }
  }
  return 0;
}
