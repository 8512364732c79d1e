// The Array API fft extension (tenferro/ops/fft.hpp) as the submodule _fft, imported as
// tenferro.fft (python/tenferro/fft.py), with the standard's names and keywords (n=, axis=,
// norm=, s=, axes=, d=). One wrapper per C++ function.
#include "tenferro/ops/fft.hpp"

#include <string>

#include "common.hpp"

namespace tenferro::python {

namespace {

FftNorm norm_arg(const py::object& o) {
  if (o.is_none()) return FftNorm::backward;
  const std::string s = py::str(o);
  if (s == "backward") return FftNorm::backward;
  if (s == "ortho") return FftNorm::ortho;
  if (s == "forward") return FftNorm::forward;
  throw py::value_error("fft: norm must be 'backward', 'ortho' or 'forward', got '" + s + "'");
}

std::optional<std::int64_t> opt_int(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  return to_int64(o);
}

// None, an int or a sequence of ints.
std::optional<std::vector<std::int64_t>> opt_ints(const py::object& o) {
  if (o.is_none()) return std::nullopt;
  if (py::isinstance<py::int_>(o) || py::hasattr(o, "__index__")) return {{to_int64(o)}};
  std::vector<std::int64_t> v;
  for (py::handle h : o) v.push_back(to_int64(h));
  return v;
}

using OneD = Tensor (*)(const Tensor&, std::optional<std::int64_t>, std::int64_t, FftNorm);
using ND = Tensor (*)(const Tensor&, std::optional<std::vector<std::int64_t>>,
                      std::optional<std::vector<std::int64_t>>, FftNorm);

}  // namespace

void bind_fft(py::module_& m) {
  py::module_ f = m.def_submodule(
      "_fft", "The Array API fft extension (C++ tenferro/ops/fft.hpp); import it as tenferro.fft");
  f.attr("__name__") = "tenferro.fft";
  const std::pair<const char*, OneD> one_d[] = {{"fft", &fft},   {"ifft", &ifft},
                                                {"rfft", &rfft}, {"irfft", &irfft},
                                                {"hfft", &hfft}, {"ihfft", &ihfft}};
  for (auto [name, fn] : one_d)
    f.def(
        name,
        [fn](const py::object& x, const py::object& n, std::int64_t axis, const py::object& norm) {
          const Tensor t = asarray(x);
          const auto nn = opt_int(n);
          const FftNorm nm = norm_arg(norm);
          return call([&](const Tensor& a) { return fn(a, nn, axis, nm); }, t);
        },
        "x"_a, py::pos_only(), py::kw_only(), "n"_a = py::none(), "axis"_a = -1,
        "norm"_a = "backward");
  const std::pair<const char*, ND> n_d[] = {
      {"fftn", &fftn}, {"ifftn", &ifftn}, {"rfftn", &rfftn}, {"irfftn", &irfftn}};
  for (auto [name, fn] : n_d)
    f.def(
        name,
        [fn](const py::object& x, const py::object& s, const py::object& axes,
             const py::object& norm) {
          const Tensor t = asarray(x);
          const auto ss = opt_ints(s), aa = opt_ints(axes);
          const FftNorm nm = norm_arg(norm);
          return call([&](const Tensor& a) { return fn(a, ss, aa, nm); }, t);
        },
        "x"_a, py::pos_only(), py::kw_only(), "s"_a = py::none(), "axes"_a = py::none(),
        "norm"_a = "backward");
  for (const char* name : {"fftfreq", "rfftfreq"}) {
    const bool half = name[0] == 'r';
    f.def(
        name,
        [half](std::int64_t n, double d, const py::object& dtype, const py::object& device) {
          (void)device;  // the one device is the CPU
          const DType dt = dtype_or_f64(dtype);
          return half ? rfftfreq(n, d, dt) : fftfreq(n, d, dt);
        },
        "n"_a, py::pos_only(), py::kw_only(), "d"_a = 1.0, "dtype"_a = py::none(),
        "device"_a = py::none());
  }
  for (const char* name : {"fftshift", "ifftshift"}) {
    const bool inv = name[0] == 'i';
    f.def(
        name,
        [inv](const py::object& x, const py::object& axes) {
          const Tensor t = asarray(x);
          const auto aa = opt_ints(axes);
          return call([&](const Tensor& a) { return inv ? ifftshift(a, aa) : fftshift(a, aa); }, t);
        },
        "x"_a, py::pos_only(), py::kw_only(), "axes"_a = py::none());
  }
}

}  // namespace tenferro::python
