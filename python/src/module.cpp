// The extension module tenferro._tenferro (re-exported by python/tenferro/__init__.py).
#include "common.hpp"

PYBIND11_MODULE(_tenferro, m) {
  namespace tp = tenferro::python;
  m.doc() = "tenferro: tensors, autodiff and traced programs on a CPU backend (docs/python.md)";
  tp::bind_errors(m);
  tp::bind_tensor(m);
  tp::bind_dlpack(m);
  tp::bind_ops(m);
  tp::bind_ops_linalg(m);
  tp::bind_ops_array_api(m);
  tp::bind_ops_sets(m);  // after bind_tensor: sets the bitwise operators on Tensor
  tp::bind_krylov(m);
  tp::bind_fixed_point(m);
  tp::bind_einsum(m);
  tp::bind_autodiff(m);
  tp::bind_custom_rules(m);
  tp::bind_runtime(m);
  tp::bind_symmetric(m);  // the submodule _symmetric, imported as tenferro.symmetric
  tp::bind_fft(m);        // the submodule _fft, imported as tenferro.fft
  m.attr("RELEASE_GIL_ELEMENTS") = tp::kReleaseElements;
}
