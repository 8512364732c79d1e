// Note [View primitives]: reshape, permute, slice, broadcast_to and diagonal move elements by
// metadata alone. Each says two things -- its shape rule (which also validates its parameters)
// and the view of a concrete input -- and this base derives the rest once: every dtype is
// accepted, infer() is the shape rule, the eager result is the view (sharing storage), execute()
// (traced or prepared programs, which want contiguous outputs) copies the view, and the JVP is
// the same op on the tangent (a view is linear). VJPs differ per op and stay with each.
#pragma once

#include <span>

#include "core/strided.hpp"
#include "primitives/primitive.hpp"

namespace tenferro::detail {

/// Derived provides `Dims view_shape(const Tensor& x) const` (reads only x's shape and dtype,
/// throws on bad input) and `Tensor view_of(const Tensor& x) const` (x has storage).
template <class Derived>
class ViewPrimitive : public PrimitiveWith<Derived> {
 public:
  bool accepts_integers() const override { return true; }  // moves elements only
  void infer(std::span<const Tensor> in, SpecList& out) const override {
    out.push_back({in[0].dtype(), self().view_shape(in[0])});
  }
  bool try_view(const Tensor& x, Tensor& out) const override {
    if (!x.has_storage()) {
      (void)self().view_shape(x);  // the same errors as a concrete input
      return false;
    }
    out = self().view_of(x);
    return true;
  }
  void execute(ExecContext&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    copy_to_contiguous(self().view_of(in[0]), out[0].data_ptr(), out[0].dtype());
  }
  void jvp(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor> t,
           std::span<Tensor> out_t) const override {
    if (t[0].defined()) out_t[0] = bind1(self(), t[0]);
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

}  // namespace tenferro::detail
