// Program transforms by re-tracing.
//
// Note [Transforms re-trace]: grad/vjp/jvp of a program are traced functions that interpret the
// program under the autodiff interpreter: e.g. grad(p) = trace(xs -> autodiff::grad(p, xs)).
// The tape records on traced tensors, and backward runs the primitives' VJP rules (written with
// public ops) on traced tensors, so every derivative op lands in the new program through the
// tracer (Note [One catalog, three interpreters]). The results are ordinary programs, so the
// transforms compose: jvp(grad(p)) is forward-over-reverse and grad(grad(p)) is reverse-over-
// reverse, each a first-order pass over a program. Results are optimize()d, which removes the
// forward computations a derivative does not read.
#include <string>

#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"
#include "trace/trace_state.hpp"

namespace tenferro {

namespace {
// The program as a function of traced (and autodiff-carrying) tensors.
struct Interpret {
  const Program& p;
  std::vector<Tensor> operator()(std::span<const Tensor> xs) const { return p(xs); }
};
}  // namespace

Program vjp(const Program& p) {
  std::vector<ValueSpec> specs = p.input_specs, outs = p.output_specs();
  specs.insert(specs.end(), outs.begin(), outs.end());
  const std::size_t n = p.inputs.size();
  Interpret f{p};
  return optimize(trace(
      [&](std::span<const Tensor> xs) {
        // Bool and integer inputs (indices) are constants of the derivative, as in grad(p): the
        // pullback is taken w.r.t. the floating inputs, and their cotangents are zeros.
        std::vector<std::size_t> wrt;
        std::vector<Tensor> w, result(n);
        for (std::size_t i = 0; i < n; ++i)
          if (is_floating(xs[i].dtype())) {
            wrt.push_back(i);
            w.push_back(xs[i]);
          } else {
            result[i] = zeros(xs[i].shape(), xs[i].dtype());
          }
        if (wrt.size() == n) return tenferro::vjp(MultiFn(f), xs.first(n)).pullback(xs.subspan(n));
        MultiFn of_floating([&](std::span<const Tensor> v) {
          std::vector<Tensor> in(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(n));
          for (std::size_t k = 0; k < wrt.size(); ++k) in[wrt[k]] = v[k];
          return p(in);
        });
        std::vector<Tensor> g = tenferro::vjp(of_floating, w).pullback(xs.subspan(n));
        for (std::size_t k = 0; k < wrt.size(); ++k) result[wrt[k]] = std::move(g[k]);
        return result;
      },
      specs));
}

Program grad(const Program& p, std::span<const int> wrt) {
  std::vector<ValueSpec> outs = p.output_specs();
  if (outs.size() != 1 || dims_numel(outs[0].shape) != 1 || is_complex(outs[0].dtype) ||
      is_integral(outs[0].dtype))
    throw Error(ErrorKind::InvalidArgument,
                "grad: the program must have exactly one real floating output with one element; "
                "it has " +
                    std::to_string(outs.size()) + " outputs" +
                    (outs.empty() ? std::string() : " (first: " + to_string(outs[0]) + ")") +
                    "; use vjp() for other programs");
  // Default: every floating input (bool and integer inputs are constants of the derivative).
  std::vector<int> chosen(wrt.begin(), wrt.end());
  if (chosen.empty())
    for (std::size_t i = 0; i < p.inputs.size(); ++i)
      if (is_floating(p.input_specs[i].dtype)) chosen.push_back(static_cast<int>(i));
  for (int i : chosen) {
    if (i < 0 || static_cast<std::size_t>(i) >= p.inputs.size())
      throw Error(ErrorKind::InvalidArgument, "grad: wrt index " + std::to_string(i) +
                                                  " is out of range for a program with " +
                                                  std::to_string(p.inputs.size()) + " inputs");
    if (is_integral(p.input_specs[static_cast<std::size_t>(i)].dtype))
      throw Error(ErrorKind::DTypeMismatch,
                  "grad: wrt index " + std::to_string(i) + " is input " +
                      to_string(p.input_specs[static_cast<std::size_t>(i)]) +
                      "; only floating inputs (f32, f64, c64, c128) can be differentiated");
  }
  return optimize(trace(
      [&](std::span<const Tensor> xs) {
        std::vector<Tensor> wrt_values;
        for (int i : chosen) wrt_values.push_back(xs[static_cast<std::size_t>(i)]);
        return tenferro::grad(ScalarFn([&](std::span<const Tensor> w) {
                                std::vector<Tensor> in(xs.begin(), xs.end());
                                for (std::size_t k = 0; k < chosen.size(); ++k)
                                  in[static_cast<std::size_t>(chosen[k])] = w[k];
                                return p(in)[0];
                              }),
                              wrt_values);
      },
      p.input_specs));
}

Program grad(const Program& p, std::initializer_list<int> wrt) {
  return grad(p, std::span<const int>(wrt.begin(), wrt.size()));
}

Program jvp(const Program& p) {
  std::vector<ValueSpec> specs = p.input_specs;
  specs.insert(specs.end(), p.input_specs.begin(), p.input_specs.end());
  const std::size_t n = p.inputs.size();
  Interpret f{p};
  return optimize(trace(
      [&](std::span<const Tensor> xs) {
        // A bool or integer input's tangent (an input of its spec) is ignored: it is a constant.
        std::vector<Tensor> t(xs.begin() + static_cast<std::ptrdiff_t>(n), xs.end());
        for (std::size_t i = 0; i < n; ++i)
          if (!is_floating(xs[i].dtype())) t[i] = Tensor();
        JvpResult r = tenferro::jvp(MultiFn(f), xs.first(n), t);
        std::vector<Tensor> result = std::move(r.outputs);
        result.insert(result.end(), r.tangents.begin(), r.tangents.end());
        return result;
      },
      specs));
}

}  // namespace tenferro
