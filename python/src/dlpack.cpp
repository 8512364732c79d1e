// DLPack both ways (the 0.x "dltensor" capsule protocol, kDLCPU only): Tensor.__dlpack__,
// Tensor.__dlpack_device__ and tenferro.from_dlpack. The structs are written out here from the
// DLPack specification (dlpack.h, v0.8) rather than taken from a header.
//
// Export: the capsule owns a DLManagedTensor whose manager_ctx holds a reference to the tensor's
// storage; a consumer renames the capsule "used_dltensor" and later calls the deleter. An
// unconsumed capsule calls the deleter when it is collected.
// Import: the capsule is renamed "used_dltensor" and the producer's deleter runs when the last
// tenferro tensor on that memory is gone (Note [Storage ownership]).
#include <cstring>
#include <string>

#include "common.hpp"

namespace tenferro::python {

Tensor adopt_python_memory(py::handle owner, void* base, std::size_t bytes, Dims shape,
                           Dims strides, std::int64_t offset, DType dtype);

namespace {

// ---- dlpack.h (v0.8) ----
enum DLDeviceType : std::int32_t { kDLCPU = 1 };
struct DLDevice {
  std::int32_t device_type;
  std::int32_t device_id;
};
enum DLDataTypeCode : std::uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6
};
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

constexpr const char* kCapsule = "dltensor";
constexpr const char* kUsedCapsule = "used_dltensor";

/// What an exported DLManagedTensor owns.
struct ExportContext {
  DLManagedTensor managed{};
  StoragePtr storage;
  std::vector<std::int64_t> shape, strides;
};

void delete_export(DLManagedTensor* self) { delete static_cast<ExportContext*>(self->manager_ctx); }

void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, kCapsule)) {  // never consumed
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsule));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
}

DLDataType dl_dtype(DType d) {
  const auto bits = static_cast<std::uint8_t>(dtype_size(d) * 8);
  switch (d) {
    case DType::boolean:
      return {kDLBool, 8, 1};
    case DType::i8:
    case DType::i16:
    case DType::i32:
    case DType::i64:
      return {kDLInt, bits, 1};
    case DType::u8:
    case DType::u16:
    case DType::u32:
    case DType::u64:
      return {kDLUInt, bits, 1};
    case DType::f32:
    case DType::f64:
      return {kDLFloat, bits, 1};
    case DType::c64:
    case DType::c128:
      break;
  }
  return {kDLComplex, bits, 1};
}

DType from_dl_dtype(DLDataType t) {
  if (t.lanes == 1) {
    if (t.code == kDLBool && t.bits == 8) return DType::boolean;
    if (t.code == kDLInt && t.bits == 8) return DType::i8;
    if (t.code == kDLInt && t.bits == 16) return DType::i16;
    if (t.code == kDLInt && t.bits == 32) return DType::i32;
    if (t.code == kDLInt && t.bits == 64) return DType::i64;
    if (t.code == kDLUInt && t.bits == 8) return DType::u8;
    if (t.code == kDLUInt && t.bits == 16) return DType::u16;
    if (t.code == kDLUInt && t.bits == 32) return DType::u32;
    if (t.code == kDLUInt && t.bits == 64) return DType::u64;
    if (t.code == kDLFloat && t.bits == 32) return DType::f32;
    if (t.code == kDLFloat && t.bits == 64) return DType::f64;
    if (t.code == kDLComplex && t.bits == 64) return DType::c64;
    if (t.code == kDLComplex && t.bits == 128) return DType::c128;
  }
  throw Error(
      ErrorKind::DTypeMismatch,
      "from_dlpack: DLPack dtype (code " + std::to_string(t.code) + ", bits " +
          std::to_string(t.bits) + ", lanes " + std::to_string(t.lanes) +
          ") has no tenferro dtype (bfloat16/float16 included: tenferro has no 16-bit float)");
}

py::capsule to_dlpack(const Tensor& t) {
  check_exportable(t, "__dlpack__");
  for (std::int64_t k = 0; k < t.rank(); ++k)
    if (t.strides()[k] < 0 && t.shape()[k] > 1)
      // DLPack consumers assume non-negative strides (PyTorch 1.13 aborts the process on them).
      throw py::buffer_error(
          "__dlpack__: the tensor has negative strides, which DLPack consumers do not support; "
          "export t.contiguous() (a copy), or use np.asarray(t) (zero-copy)");
  auto* ctx = new ExportContext;
  ctx->storage = t.storage();
  ctx->shape.assign(t.shape().begin(), t.shape().end());
  ctx->strides.assign(t.strides().begin(), t.strides().end());
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = t.data_ptr();
  dl.device = {kDLCPU, 0};
  dl.ndim = static_cast<std::int32_t>(t.rank());
  dl.dtype = dl_dtype(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = &delete_export;
  PyObject* cap = PyCapsule_New(&ctx->managed, kCapsule, &capsule_destructor);
  if (cap == nullptr) {
    delete ctx;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(cap);
}

Tensor from_dlpack(const py::object& obj) {
  py::object cap = obj;
  if (!PyCapsule_CheckExact(obj.ptr())) {
    if (!py::hasattr(obj, "__dlpack__"))
      throw Error(ErrorKind::InvalidArgument,
                  "from_dlpack: the object has no __dlpack__ method and is not a DLPack capsule");
    if (py::hasattr(obj, "__dlpack_device__")) {
      py::tuple dev = obj.attr("__dlpack_device__")();
      if (dev[0].cast<int>() != kDLCPU)
        throw Error(ErrorKind::Unsupported, "from_dlpack: only CPU (kDLCPU) tensors are supported");
    }
    cap = obj.attr("__dlpack__")();
  }
  if (!PyCapsule_IsValid(cap.ptr(), kCapsule))
    throw Error(ErrorKind::InvalidArgument,
                "from_dlpack: not a 'dltensor' capsule (a capsule can be consumed only once)");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), kCapsule));
  const DLTensor& dl = managed->dl_tensor;
  if (dl.device.device_type != kDLCPU)
    throw Error(ErrorKind::Unsupported, "from_dlpack: only CPU (kDLCPU) tensors are supported");
  const DType dtype = from_dl_dtype(dl.dtype);
  // Consume the capsule: from here on we own `managed` and its deleter.
  PyCapsule_SetName(cap.ptr(), kUsedCapsule);
  PyCapsule_SetDestructor(cap.ptr(), nullptr);
  // The owner of the memory: a capsule that runs the producer's deleter when collected.
  py::capsule owner(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter != nullptr) m->deleter(m);
  });
  // Strides may be NULL (compact row-major, DLPack < 0.8 semantics).
  std::vector<std::int64_t> st(static_cast<std::size_t>(dl.ndim));
  std::int64_t expected = 1;
  for (std::int32_t k = dl.ndim - 1; k >= 0; --k) {
    st[k] = dl.strides != nullptr ? dl.strides[k] : expected;
    expected *= dl.shape[k];
  }
  Dims shape, strides;
  std::int64_t lo = 0, hi = 0;
  bool empty = false;
  for (std::int32_t k = 0; k < dl.ndim; ++k) {
    const std::int64_t n = dl.shape[k];
    shape.push_back(n);
    strides.push_back(st[k]);
    if (n == 0) empty = true;
    if (n > 1) (st[k] < 0 ? lo : hi) += st[k] * (n - 1);
  }
  const auto item = static_cast<std::int64_t>(dtype_size(dtype));
  char* data = static_cast<char*>(dl.data) + dl.byte_offset;
  if (empty) return adopt_python_memory(owner, data, 0, shape, strides, 0, dtype);
  return adopt_python_memory(owner, data + lo * item,
                             static_cast<std::size_t>((hi - lo + 1) * item), shape, strides, -lo,
                             dtype);
}

}  // namespace

void bind_dlpack(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::object>(m.attr("Tensor"));
  py::cpp_function dlpack(
      [](const Tensor& t, const py::object& stream) {
        if (!stream.is_none())
          throw Error(ErrorKind::Unsupported, "__dlpack__: stream must be None for CPU tensors");
        return to_dlpack(t);
      },
      py::name("__dlpack__"), py::is_method(cls),
      py::sibling(py::getattr(cls, "__dlpack__", py::none())), "stream"_a = py::none());
  cls.attr("__dlpack__") = dlpack;
  py::cpp_function device([](const Tensor&) { return py::make_tuple(static_cast<int>(kDLCPU), 0); },
                          py::name("__dlpack_device__"), py::is_method(cls));
  cls.attr("__dlpack_device__") = device;
  m.def("from_dlpack", &from_dlpack, "obj"_a,
        "A Tensor sharing the memory of a DLPack producer (an object with __dlpack__, or a "
        "'dltensor' capsule); kDLCPU only.");
  m.def("to_dlpack", &to_dlpack, "t"_a, "The 'dltensor' capsule of t (t.__dlpack__()).");
}

}  // namespace tenferro::python
