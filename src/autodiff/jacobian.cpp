// Full Jacobians and Hessians from the functional transforms: jacrev (one evaluation, one
// pullback per output element), jacfwd (one jvp per input element), hessian (the gradient
// evaluated once, one pullback of it per input element). Every step is an ordinary recorded op, so
// the results are differentiable by enclosing transforms like any other value (Note [Autodiff
// levels]).
#include "autodiff/tape.hpp"
#include "tenferro/autodiff.hpp"
#include "tenferro/ops.hpp"

namespace tenferro {

namespace {

// The m x m identity of `dtype`, whose rows are the basis directions.
Tensor basis(std::int64_t m, DType dtype) { return one_hot(arange(m, DType::i64), m, dtype); }

// Row k of the identity, shaped like `like`.
Tensor direction(const Tensor& eye, std::int64_t k, const Tensor& like) {
  return reshape(slice(eye, 0, k, k + 1), like.shape());
}

Dims concat_dims(const Tensor& a, const Tensor& b) {
  Dims d = a.shape();
  for (std::int64_t x : b.shape()) d.push_back(x);
  return d;
}

void check_real(const Tensor& t, const char* api, const char* what, std::size_t i) {
  if (!is_complex(t.dtype())) return;
  throw Error(ErrorKind::InvalidArgument,
              std::string(api) + ": " + what + " " + std::to_string(i) + " is complex (" +
                  detail::describe({&t, 1}) +
                  "); the Jacobian of a function of complex numbers is one complex matrix only "
                  "when the function is holomorphic, which cannot be checked: use jvp/vjp (or "
                  "hvp) directly");
}

}  // namespace

std::vector<Tensor> jacrev(const ScalarFn& f, std::span<const Tensor> inputs) {
  for (std::size_t i = 0; i < inputs.size(); ++i) check_real(inputs[i], "jacrev", "input", i);
  VjpResult r = vjp(f, inputs);
  const Tensor& out = r.outputs[0];
  check_real(out, "jacrev", "output", 0);
  const std::int64_t m = out.numel();
  const Tensor eye = basis(m, out.dtype());
  std::vector<std::vector<Tensor>> rows(inputs.size());
  for (std::int64_t o = 0; o < m; ++o) {
    std::vector<Tensor> g = r.pullback({direction(eye, o, out)});
    for (std::size_t i = 0; i < inputs.size(); ++i) rows[i].push_back(std::move(g[i]));
  }
  std::vector<Tensor> jac;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    jac.push_back(m == 0 ? zeros(concat_dims(out, inputs[i]), inputs[i].dtype())
                         : reshape(stack(rows[i]), concat_dims(out, inputs[i])));
  return jac;
}

std::vector<Tensor> jacfwd(const ScalarFn& f, std::span<const Tensor> inputs) {
  for (std::size_t i = 0; i < inputs.size(); ++i) check_real(inputs[i], "jacfwd", "input", i);
  std::vector<Tensor> jac;
  Tensor out_like;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::int64_t n = inputs[i].numel();
    const Tensor eye = basis(n, inputs[i].dtype());
    std::vector<Tensor> cols;
    std::vector<Tensor> tangents(inputs.size());
    for (std::int64_t k = 0; k < n; ++k) {
      tangents[i] = direction(eye, k, inputs[i]);
      JvpResult r = jvp(f, inputs, tangents);
      check_real(r.outputs[0], "jacfwd", "output", 0);
      out_like = r.outputs[0];
      cols.push_back(std::move(r.tangents[0]));
    }
    if (n == 0) {
      if (!out_like.defined()) out_like = f(inputs);
      jac.push_back(zeros(concat_dims(out_like, inputs[i]), out_like.dtype()));
      continue;
    }
    // cols[k] has the output's shape: stack on a last axis, then split it into the input's.
    jac.push_back(reshape(stack(cols, -1), concat_dims(out_like, inputs[i])));
  }
  return jac;
}

std::vector<std::vector<Tensor>> hessian(const ScalarFn& f, std::span<const Tensor> inputs) {
  for (std::size_t i = 0; i < inputs.size(); ++i) check_real(inputs[i], "hessian", "input", i);
  // Reverse over reverse: the gradient is evaluated (and recorded) once, then each row of the
  // Hessian is one pullback of it -- one backward pass over the recorded gradient graph per
  // input element, where a loop of hvps would redo f and its gradient for every element.
  VjpResult r = vjp(MultiFn([&](std::span<const Tensor> x) { return grad(f, x); }), inputs);
  std::vector<std::vector<Tensor>> h(inputs.size(), std::vector<Tensor>(inputs.size()));
  std::vector<Tensor> ct(inputs.size());
  for (std::size_t j = 0; j < inputs.size(); ++j) {
    const std::int64_t n = inputs[j].numel();
    const Tensor eye = basis(n, inputs[j].dtype());
    std::vector<std::vector<Tensor>> rows(inputs.size());
    for (std::int64_t k = 0; k < n; ++k) {
      ct[j] = direction(eye, k, inputs[j]);
      std::vector<Tensor> row = r.pullback(ct);  // d grad_j[k] / d input_i, for every i
      for (std::size_t i = 0; i < inputs.size(); ++i) rows[i].push_back(std::move(row[i]));
    }
    ct[j] = Tensor();
    for (std::size_t i = 0; i < inputs.size(); ++i)
      h[j][i] = n == 0 ? zeros(concat_dims(inputs[j], inputs[i]), inputs[j].dtype())
                       : reshape(stack(rows[i]), concat_dims(inputs[j], inputs[i]));
  }
  return h;
}

std::vector<Tensor> jacrev(const ScalarFn& f, std::initializer_list<Tensor> inputs) {
  return jacrev(f, std::span<const Tensor>(inputs.begin(), inputs.size()));
}
std::vector<Tensor> jacfwd(const ScalarFn& f, std::initializer_list<Tensor> inputs) {
  return jacfwd(f, std::span<const Tensor>(inputs.begin(), inputs.size()));
}
std::vector<std::vector<Tensor>> hessian(const ScalarFn& f, std::initializer_list<Tensor> inputs) {
  return hessian(f, std::span<const Tensor>(inputs.begin(), inputs.size()));
}

}  // namespace tenferro
