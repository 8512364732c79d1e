// Collectives on tensors: allreduce, broadcast, allgather, reduce_scatter (tenferro/dist.hpp).
#include "dist/collectives.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "einsum/sliced.hpp"

namespace tenferro::dist {
namespace detail {
namespace {

// NaN-propagating max/min for f32/f64, as tenferro's maximum/minimum (MPI_MAX is not).
template <class T, bool Max>
void minmax_loop(const void* in, void* inout, int n) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < n; ++i) {
    if (std::isnan(b[i])) continue;
    if (std::isnan(a[i]) || (Max ? a[i] > b[i] : a[i] < b[i])) b[i] = a[i];
  }
}
template <bool Max>
void nan_minmax(void* in, void* inout, int* len, MPI_Datatype* type) {
  if (*type == MPI_FLOAT)
    minmax_loop<float, Max>(in, inout, *len);
  else
    minmax_loop<double, Max>(in, inout, *len);
}

struct FloatOps {
  MPI_Op max = MPI_OP_NULL, min = MPI_OP_NULL;
};
// Created on first use (MPI is initialised by then) and kept until MPI_Finalize frees them.
const FloatOps& float_ops() {
  static FloatOps ops;
  static std::once_flag once;
  std::call_once(once, [] {
    MPI_Op_create(&nan_minmax<true>, 1, &ops.max);
    MPI_Op_create(&nan_minmax<false>, 1, &ops.min);
  });
  return ops;
}

std::string describe_shape(const Tensor& x) {
  return x.defined() ? "shape " + dims_to_string(x.shape()) : std::string("an undefined tensor");
}
std::string describe_dtype(const Tensor& x) {
  return x.defined() ? "dtype " + std::string(dtype_name(x.dtype())) : std::string("no dtype");
}

std::uint64_t shape_hash(const Tensor& x) {
  Hasher h;
  h.add(x.defined());
  if (x.defined())
    for (std::int64_t d : x.shape()) h.add(d);
  return h.value();
}
std::uint64_t dtype_hash(const Tensor& x) {
  return Hasher().add(x.defined() ? static_cast<int>(x.dtype()) : -1).value();
}

// Pieces of at most INT_MAX elements (MPI counts are int).
template <class F>
void in_pieces(std::int64_t n, std::size_t itemsize, F&& f) {
  std::int64_t done = 0;
  do {
    const std::int64_t count = std::min<std::int64_t>(n - done, INT_MAX);
    f(static_cast<std::size_t>(done) * itemsize, static_cast<int>(count));
    done += count;
  } while (done < n);
}

int int_count(std::int64_t n, const char* op) {
  if (n > INT_MAX)
    throw Error(ErrorKind::Unsupported,
                std::string(op) + ": " + std::to_string(n) +
                    " elements per rank exceed MPI's int count (" + std::to_string(INT_MAX) +
                    "); expected smaller pieces (allreduce and broadcast split them themselves)");
  return static_cast<int>(n);
}

char* bytes(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }

}  // namespace

MPI_Datatype mpi_datatype(DType d) {
  switch (d) {
    case DType::boolean:
      return MPI_C_BOOL;
    case DType::i32:
      return MPI_INT32_T;
    case DType::i64:
      return MPI_INT64_T;
    case DType::i8:
      return MPI_INT8_T;
    case DType::i16:
      return MPI_INT16_T;
    case DType::u8:
      return MPI_UINT8_T;
    case DType::u16:
      return MPI_UINT16_T;
    case DType::u32:
      return MPI_UINT32_T;
    case DType::u64:
      return MPI_UINT64_T;
    case DType::f32:
      return MPI_FLOAT;
    case DType::f64:
      return MPI_DOUBLE;
    case DType::c64:
      return MPI_C_FLOAT_COMPLEX;
    case DType::c128:
      return MPI_C_DOUBLE_COMPLEX;
  }
  throw Error(ErrorKind::InvalidArgument, "dist: unknown dtype");
}

MPI_Op mpi_op(ReduceOp op, DType d, const char* name) {
  if (op != ReduceOp::sum && op != ReduceOp::max && op != ReduceOp::min)
    throw Error(ErrorKind::InvalidArgument, std::string(name) + ": ReduceOp has value " +
                                                std::to_string(static_cast<int>(op)) +
                                                "; expected sum, max or min");
  const std::string what = std::string(name) + ": " + std::string(to_string(op)) + " of dtype " +
                           std::string(dtype_name(d));
  if (op == ReduceOp::sum) {
    if (d == DType::boolean)
      throw Error(ErrorKind::DTypeMismatch,
                  what +
                      " is not arithmetic on bool; expected an integer dtype (cast() it), or "
                      "max (logical or) / min (logical and)");
    return MPI_SUM;
  }
  const bool max = op == ReduceOp::max;
  switch (d) {
    case DType::boolean:
      return max ? MPI_LOR : MPI_LAND;
    case DType::i8:
    case DType::i16:
    case DType::i32:
    case DType::i64:
    case DType::u8:
    case DType::u16:
    case DType::u32:
    case DType::u64:
      return max ? MPI_MAX : MPI_MIN;
    case DType::f32:
    case DType::f64:
      return max ? float_ops().max : float_ops().min;
    default:
      throw Error(ErrorKind::DTypeMismatch,
                  what +
                      " is not defined (complex numbers are not ordered); expected a real "
                      "dtype");
  }
}

void check_communicable(const Tensor& x, const char* op) {
  if (!x.defined())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the tensor is undefined");
  using tenferro::detail::Unrecorded;
  const Unrecorded recorded = tenferro::detail::unrecorded_state(x);
  const char* state = recorded == Unrecorded::traced          ? "is traced"
                      : recorded == Unrecorded::tangent       ? "carries a forward-mode tangent"
                      : recorded == Unrecorded::requires_grad ? "requires grad"
                                                              : nullptr;
  if (state)
    throw Error(ErrorKind::Unsupported, std::string(op) + ": the tensor " + describe_shape(x) +
                                            " " + state +
                                            "; communication is not recorded by autodiff: "
                                            "expected detach(x)");
  if (!x.has_storage())
    throw Error(ErrorKind::InvalidArgument, std::string(op) + ": the tensor has no storage");
}

void reduce_in_place(const Comm& comm, Tensor& x, MPI_Op op, const char* name) {
  const MPI_Datatype type = mpi_datatype(x.dtype());
  const std::size_t item = dtype_size(x.dtype());
  in_pieces(x.numel(), item, [&](std::size_t at, int count) {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, bytes(x) + at, count, type, op, comm.native()), name,
              "MPI_Allreduce");
  });
}

}  // namespace detail

std::string_view to_string(ReduceOp op) noexcept {
  switch (op) {
    case ReduceOp::sum:
      return "sum";
    case ReduceOp::max:
      return "max";
    case ReduceOp::min:
      return "min";
  }
  return "?";
}

namespace {

using detail::Claim;

// The agreement of a collective on x (shape, dtype) and `extra` (op or root), then x's checks.
template <class F>
void agreed_collective(const Comm& comm, const char* op, const Tensor& x, int extra,
                       const char* extra_what, F&& local) {
  detail::check_callable(comm, op);
  if (!comm.options().check_agreement) {
    local();
    return;
  }
  const Claim claims[] = {
      {ErrorKind::ShapeMismatch, "the tensor's shape", detail::shape_hash(x),
       [&] { return detail::describe_shape(x); }},
      {ErrorKind::DTypeMismatch, "the tensor's dtype", detail::dtype_hash(x),
       [&] { return detail::describe_dtype(x); }},
      {ErrorKind::InvalidArgument, extra_what, detail::Hasher().add(extra).value(),
       [&] { return std::to_string(extra); }},
  };
  detail::run_agreed(comm, op, claims, local);
}

}  // namespace

Tensor Comm::allreduce(const Tensor& x, ReduceOp op) const {
  constexpr const char* name = "dist::Comm::allreduce";
  MPI_Op mop = MPI_OP_NULL;
  Tensor src;
  agreed_collective(*this, name, x, static_cast<int>(op), "the reduction (ReduceOp)", [&] {
    detail::check_communicable(x, name);
    mop = detail::mpi_op(op, x.dtype(), name);
    src = x.contiguous();
  });
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  const MPI_Datatype type = detail::mpi_datatype(x.dtype());
  detail::in_pieces(x.numel(), dtype_size(x.dtype()), [&](std::size_t at, int count) {
    detail::check_mpi(
        MPI_Allreduce(detail::bytes(src) + at, detail::bytes(out) + at, count, type, mop, comm_),
        name, "MPI_Allreduce");
  });
  return out;
}

void Comm::allreduce_into(Tensor& x, ReduceOp op) const {
  constexpr const char* name = "dist::Comm::allreduce_into";
  MPI_Op mop = MPI_OP_NULL;
  agreed_collective(*this, name, x, static_cast<int>(op), "the reduction (ReduceOp)", [&] {
    detail::check_communicable(x, name);
    if (!x.is_contiguous())
      throw Error(ErrorKind::InvalidArgument,
                  std::string(name) + ": the tensor " + detail::describe_shape(x) +
                      " is not contiguous; expected a contiguous tensor (or allreduce, which "
                      "packs a strided one)");
    mop = detail::mpi_op(op, x.dtype(), name);
  });
  x.storage()->note_write(name);
  detail::reduce_in_place(*this, x, mop, name);
}

Tensor Comm::broadcast(const Tensor& x, int root) const {
  constexpr const char* name = "dist::Comm::broadcast";
  detail::check_callable(*this, name);
  Tensor src;
  auto local = [&] {
    if (root < 0 || root >= size_)
      throw Error(ErrorKind::InvalidArgument,
                  std::string(name) + ": root is " + std::to_string(root) +
                      "; expected a rank in [0, " + std::to_string(size_) + ")");
    if (rank_ != root) return;
    detail::check_communicable(x, name);
    src = x.contiguous();
  };
  if (options_.check_agreement) {
    const Claim claims[] = {{ErrorKind::InvalidArgument, "the root",
                             detail::Hasher().add(root).value(),
                             [&] { return "root " + std::to_string(root); }}};
    detail::run_agreed(*this, name, claims, local);
  } else {
    local();
  }
  // The root's dtype and shape first: the other ranks' x may be anything.
  std::vector<std::int64_t> head{0, 0};
  if (rank_ == root) {
    head = {static_cast<std::int64_t>(src.dtype()), src.rank()};
    head.insert(head.end(), src.shape().begin(), src.shape().end());
  }
  std::int64_t n = static_cast<std::int64_t>(head.size());
  detail::check_mpi(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm_), name, "MPI_Bcast");
  head.resize(static_cast<std::size_t>(n));
  detail::check_mpi(MPI_Bcast(head.data(), static_cast<int>(n), MPI_INT64_T, root, comm_), name,
                    "MPI_Bcast");
  const auto dtype = static_cast<DType>(head[0]);
  // The root returns a fresh tensor too, never x's own storage; a strided x was packed already.
  const bool packed = rank_ == root && src.data_ptr() != x.data_ptr();
  Tensor out = packed ? src : Tensor::empty(Dims(head.begin() + 2, head.end()), dtype);
  if (rank_ == root && !packed)
    std::memcpy(out.data_ptr(), src.data_ptr(),
                static_cast<std::size_t>(src.numel()) * dtype_size(dtype));
  const MPI_Datatype type = detail::mpi_datatype(dtype);
  detail::in_pieces(out.numel(), dtype_size(dtype), [&](std::size_t at, int count) {
    detail::check_mpi(MPI_Bcast(detail::bytes(out) + at, count, type, root, comm_), name,
                      "MPI_Bcast");
  });
  return out;
}

Tensor Comm::allgather(const Tensor& x) const {
  constexpr const char* name = "dist::Comm::allgather";
  Tensor src;
  int count = 0;
  agreed_collective(*this, name, x, 0, "nothing", [&] {
    detail::check_communicable(x, name);
    count = detail::int_count(x.numel(), name);
    src = x.contiguous();
  });
  Dims shape{size_};
  for (std::int64_t d : x.shape()) shape.push_back(d);
  Tensor out = Tensor::empty(shape, x.dtype());
  const MPI_Datatype type = detail::mpi_datatype(x.dtype());
  detail::check_mpi(
      MPI_Allgather(detail::bytes(src), count, type, detail::bytes(out), count, type, comm_), name,
      "MPI_Allgather");
  return out;
}

Tensor Comm::reduce_scatter(const Tensor& x, ReduceOp op) const {
  constexpr const char* name = "dist::Comm::reduce_scatter";
  MPI_Op mop = MPI_OP_NULL;
  Tensor src;
  std::vector<int> counts(static_cast<std::size_t>(size_));
  std::int64_t my_rows = 0;
  agreed_collective(*this, name, x, static_cast<int>(op), "the reduction (ReduceOp)", [&] {
    detail::check_communicable(x, name);
    if (x.rank() < 1)
      throw Error(ErrorKind::InvalidArgument,
                  std::string(name) +
                      ": the tensor has rank 0; expected rank >= 1 (its axis 0 "
                      "is scattered over the ranks)");
    mop = detail::mpi_op(op, x.dtype(), name);
    const std::int64_t n = x.shape()[0];
    const std::int64_t row = n > 0 ? x.numel() / n : 0;
    for (int r = 0; r < size_; ++r) {
      const auto [first, last] = tenferro::detail::slice_range(n, r, size_);
      counts[static_cast<std::size_t>(r)] = detail::int_count((last - first) * row, name);
      if (r == rank_) my_rows = last - first;
    }
    // Open MPI adds the counts up in an int too.
    if (x.numel() > INT_MAX)
      throw Error(ErrorKind::Unsupported,
                  std::string(name) + ": the tensor has " + std::to_string(x.numel()) +
                      " elements, more than MPI's int count (" + std::to_string(INT_MAX) +
                      ") in all; expected reduce_scatter of smaller pieces");
    src = x.contiguous();
  });
  Dims shape = x.shape();
  shape[0] = my_rows;
  Tensor out = Tensor::empty(shape, x.dtype());
  detail::check_mpi(MPI_Reduce_scatter(detail::bytes(src), detail::bytes(out), counts.data(),
                                       detail::mpi_datatype(x.dtype()), mop, comm_),
                    name, "MPI_Reduce_scatter");
  return out;
}

}  // namespace tenferro::dist
