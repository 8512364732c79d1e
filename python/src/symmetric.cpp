// Abelian block-sparse tensors (tenferro/symmetric.hpp) from Python: the submodule
// tenferro._tenferro._symmetric, re-exported as tenferro.symmetric by python/tenferro/symmetric.py
// (docs/python.md, "Symmetric tensors"). One thin wrapper per C++ function; what the binding adds:
//
// - Charges: an int for a group of one factor (U(1), Z_n), a tuple/list of ints otherwise (() for
//   the trivial group); charges come back the same way (an int for one factor, else a tuple).
//   Arguments are checked by Group::canonical (InvalidArgument for the wrong length), so the
//   unchecked Group::fuse/dual never see a charge of the wrong length.
// - Directions: Direction.in_ / Direction.out (`in` is a Python keyword), or the strings "in" /
//   "out". Block keys: tuples of sector indices (a list is accepted).
// - Sector indices and leg positions are checked here (InvalidArgumentError) before the C++
//   accessors that do not check them (Leg::offset, charge, sector_dim).
// - GIL (Note [GIL policy]): a wrapper releases the GIL around the C++ call when its operands
//   store at least RELEASE_GIL_ELEMENTS elements; the Krylov solvers and trace_blocks call back
//   into Python, so they keep it, and the map takes it again (as krylov.cpp's maps do).
// - Errors: C++ tenferro::Error reaches Python through errors.cpp's translator (a disallowed block
//   is InvalidArgumentError, a wrong block shape ShapeMismatchError, ...); a callback returning
//   something other than a BlockTensor is TypeError.
#include "tenferro/symmetric.hpp"

#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "krylov_options.hpp"

namespace tenferro::python {

namespace {

namespace sym = tenferro::symmetric;
using sym::BlockKey;
using sym::BlockTensor;
using sym::Charge;
using sym::Direction;
using sym::Group;
using sym::Leg;

// ---- Conversions ----

std::string type_name(py::handle h) {
  return std::string(py::str(py::type::of(h).attr("__name__")));
}

bool is_index(py::handle h) { return PyIndex_Check(h.ptr()) != 0 && !PyBool_Check(h.ptr()); }

/// A charge of group g: an int (one factor) or a sequence of ints, made canonical.
Charge to_charge(py::handle h, const Group& g) {
  Charge c;
  if (is_index(h)) {
    c.push_back(to_int64(h));
  } else if (py::isinstance<py::sequence>(h) && !py::isinstance<py::str>(h)) {
    for (py::handle x : py::reinterpret_borrow<py::sequence>(h)) {
      if (!is_index(x))
        throw py::type_error("tenferro.symmetric: a charge entry must be an int, not " +
                             type_name(x));
      c.push_back(to_int64(x));
    }
  } else {
    throw py::type_error(
        "tenferro.symmetric: a charge is an int (one-factor group) or a tuple of "
        "ints, not " +
        type_name(h));
  }
  return g.canonical(c);
}

/// flux=None is the group's identity.
Charge to_flux(const py::object& h, const Group& g) {
  return h.is_none() ? g.identity() : to_charge(h, g);
}

py::object charge_out(const Charge& c) {
  if (c.size() == 1) return py::int_(c[0]);
  py::tuple t(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) t[i] = c[i];
  return t;
}

Direction to_direction(py::handle h) {
  if (py::isinstance<Direction>(h)) return h.cast<Direction>();
  if (py::isinstance<py::str>(h)) {
    const std::string s = h.cast<std::string>();
    if (s == "in") return Direction::in;
    if (s == "out") return Direction::out;
    throw Error(ErrorKind::InvalidArgument,
                "tenferro.symmetric: direction must be 'in' or 'out', not '" + s + "'");
  }
  throw py::type_error("tenferro.symmetric: direction must be a Direction or 'in'/'out', not " +
                       type_name(h));
}

BlockKey to_key(py::handle h) {
  if (is_index(h)) return {to_int64(h)};
  if (!py::isinstance<py::sequence>(h) || py::isinstance<py::str>(h))
    throw py::type_error("tenferro.symmetric: a block key is a tuple of sector indices, not " +
                         type_name(h));
  BlockKey k;
  for (py::handle x : py::reinterpret_borrow<py::sequence>(h)) k.push_back(to_int64(x));
  return k;
}

py::tuple key_out(const BlockKey& k) {
  py::tuple t(k.size());
  for (std::size_t i = 0; i < k.size(); ++i) t[i] = k[i];
  return t;
}

py::tuple dims_out(const Dims& d) {
  py::tuple t(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) t[i] = d[i];
  return t;
}

/// The group of a leg list (the trivial group for none; the C++ constructors check they agree).
Group group_of(const std::vector<Leg>& legs) { return legs.empty() ? Group() : legs[0].group(); }

/// Sectors from a sequence of (charge, dim) pairs or a dict {charge: dim}.
std::vector<sym::Sector> to_sectors(const py::object& obj, const Group& g) {
  std::vector<sym::Sector> out;
  auto add = [&](py::handle charge, py::handle dim) {
    out.push_back({to_charge(charge, g), to_int64(dim)});
  };
  if (py::isinstance<py::dict>(obj)) {
    for (auto [c, d] : obj.cast<py::dict>()) add(c, d);
    return out;
  }
  if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj))
    throw py::type_error(
        "tenferro.symmetric.Leg: sectors must be a list of (charge, dim) pairs or a dict "
        "{charge: dim}, not " +
        type_name(obj));
  for (py::handle item : obj.cast<py::sequence>()) {
    if (!py::isinstance<py::sequence>(item) || py::len(item) != 2)
      throw py::type_error("tenferro.symmetric.Leg: a sector is a (charge, dim) pair, not " +
                           std::string(py::repr(item)));
    add(item[py::int_(0)], item[py::int_(1)]);
  }
  return out;
}

py::list sectors_out(const Leg& l) {
  py::list r;
  for (const sym::Sector& s : l.sectors()) r.append(py::make_tuple(charge_out(s.charge), s.dim));
  return r;
}

std::size_t checked_sector(const Leg& l, std::int64_t s) {
  if (s < 0 || static_cast<std::size_t>(s) >= l.num_sectors())
    throw Error(ErrorKind::InvalidArgument, "tenferro.symmetric.Leg: sector " + std::to_string(s) +
                                                " out of range for a leg of " +
                                                std::to_string(l.num_sectors()) + " sectors");
  return static_cast<std::size_t>(s);
}

std::size_t checked_leg(const BlockTensor& t, std::int64_t i) {
  const auto r = static_cast<std::int64_t>(t.rank());
  const std::int64_t a = i < 0 ? i + r : i;
  if (a < 0 || a >= r)
    throw Error(ErrorKind::InvalidArgument, "tenferro.symmetric.BlockTensor: leg " +
                                                std::to_string(i) + " out of range for rank " +
                                                std::to_string(r));
  return static_cast<std::size_t>(a);
}

py::object dtype_out(DType d) {
  return py::module_::import("tenferro._tenferro").attr("dtype")(std::string(dtype_name(d)));
}

BlockTensor result_block(const py::object& r, const char* who) {
  if (!py::isinstance<BlockTensor>(r))
    throw py::type_error(std::string(who) +
                         ": the function must return a tenferro.symmetric.BlockTensor, not " +
                         type_name(r));
  return r.cast<BlockTensor>();
}

std::vector<BlockTensor> to_blocks_list(const py::handle& seq, const char* who) {
  std::vector<BlockTensor> out;
  for (py::handle h : seq) out.push_back(result_block(py::reinterpret_borrow<py::object>(h), who));
  return out;
}

/// einsum(spec, a, b, ...) or einsum(spec, [a, b, ...]).
std::vector<BlockTensor> operands_of(const py::args& args, const char* who) {
  if (args.size() == 1 && (py::isinstance<py::list>(args[0]) || py::isinstance<py::tuple>(args[0])))
    return to_blocks_list(args[0], who);
  return to_blocks_list(args, who);
}

/// tensordot's axes: (axes_a, axes_b), or NumPy's axes=(list, list) / an int N (a's last N legs
/// with b's first N).
std::pair<Dims, Dims> to_contraction(const BlockTensor& a, const py::object& axes_a,
                                     const py::object& axes_b) {
  if (!axes_b.is_none()) return {to_dims(axes_a), to_dims(axes_b)};
  if (is_index(axes_a)) {
    const std::int64_t n = to_int64(axes_a);
    const auto r = static_cast<std::int64_t>(a.rank());
    if (n < 0 || n > r)
      throw Error(ErrorKind::InvalidArgument,
                  "tenferro.symmetric.tensordot: axes=" + std::to_string(n) + " for rank " +
                      std::to_string(r));
    Dims xa, xb;
    for (std::int64_t k = 0; k < n; ++k) {
      xa.push_back(r - n + k);
      xb.push_back(k);
    }
    return {xa, xb};
  }
  if (py::isinstance<py::sequence>(axes_a) && py::len(axes_a) == 2)
    return {to_dims(axes_a[py::int_(0)]), to_dims(axes_a[py::int_(1)])};
  throw py::type_error(
      "tenferro.symmetric.tensordot: give axes_a and axes_b, a pair (axes_a, axes_b) or an int");
}

std::int64_t size_of(const BlockTensor& t) { return t.defined() ? t.stored_size() : 0; }
std::int64_t size_of(const std::vector<BlockTensor>& ts) {
  std::int64_t n = 0;
  for (const BlockTensor& t : ts) n += size_of(t);
  return n;
}

/// f() with the GIL released when Note [GIL policy] says so for `elements`; f must not touch
/// Python.
template <class F>
decltype(auto) released(std::int64_t elements, F&& f) {
  if (should_release(elements)) {
    py::gil_scoped_release release;
    return f();
  }
  return f();
}

std::vector<Tensor> to_weights(const py::object& weights) {
  std::vector<Tensor> w;
  for (py::handle h : weights)
    w.push_back(h.is_none() ? Tensor() : asarray(py::reinterpret_borrow<py::object>(h)));
  return w;
}

std::string repr_of(const BlockTensor& t) {
  if (!t.defined()) return "BlockTensor(undefined)";
  std::ostringstream os;
  os << t;
  std::string s = os.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

/// t * alpha for a number or a 0-dimensional Tensor; NotImplemented for anything else.
py::object scaled(const BlockTensor& t, const py::object& alpha, bool reciprocal) {
  if (py::isinstance<Tensor>(alpha) && !reciprocal) {
    const Tensor& a = alpha.cast<const Tensor&>();
    return py::cast(released(size_of(t), [&] { return sym::scale(t, a); }));
  }
  std::optional<Scalar> s = as_python_scalar(alpha);
  if (!s && !py::isinstance<Tensor>(alpha) &&
      (py::hasattr(alpha, "__complex__") || py::hasattr(alpha, "__float__")))
    s = scalar_arg(alpha);
  if (!s) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  const Scalar v = reciprocal ? Scalar(1.0) / *s : *s;
  return py::cast(released(size_of(t), [&] { return sym::scale(t, v); }));
}

Scalar number_or_tensor_error(const py::object& alpha) {
  if (py::isinstance<Tensor>(alpha))
    throw py::type_error(
        "tenferro.symmetric: alpha must be a number here (scale() takes a "
        "0-dimensional Tensor)");
  return scalar_arg(alpha);
}

sym::BlockMap block_map(py::function fn, const char* who) {
  return [f = hold_callable(std::move(fn)), who](const BlockTensor& x) -> BlockTensor {
    py::gil_scoped_acquire acquire;
    return result_block((*f)(py::cast(x)), who);
  };
}

}  // namespace

void bind_symmetric(py::module_& m) {
  py::module_ s = m.def_submodule(
      "_symmetric",
      "Abelian block-sparse tensors (C++ tenferro/symmetric.hpp); import it as tenferro.symmetric");
  // Classes and functions report the public module they are used from.
  s.attr("__name__") = "tenferro.symmetric";

  // ---- Groups, directions, legs ----
  py::class_<Group>(s, "Group",
                    "An abelian group: a product of U(1) and Z_n factors. Group() is the trivial "
                    "group; Group.u1(), Group.zn(n); g * h is the product.")
      .def(py::init<>())
      .def_static("u1", &Group::u1)
      .def_static("zn", &Group::zn, "n"_a)
      .def_static("trivial", [] { return Group(); })
      .def(
          "__mul__", [](const Group& a, const Group& b) { return a * b; }, py::is_operator())
      .def_property_readonly("num_factors", &Group::num_factors)
      .def_property_readonly("moduli", &Group::moduli, "0 for a U(1) factor, n for Z_n.")
      .def(
          "identity", [](const Group& g) { return charge_out(g.identity()); },
          "The identity charge (0, or a tuple of zeros).")
      .def(
          "fuse",
          [](const Group& g, py::handle a, py::handle b) {
            return charge_out(g.fuse(to_charge(a, g), to_charge(b, g)));
          },
          "a"_a, "b"_a, "a + b (mod n per Z_n factor).")
      .def(
          "dual", [](const Group& g, py::handle a) { return charge_out(g.dual(to_charge(a, g))); },
          "a"_a, "-a.")
      .def(
          "canonical", [](const Group& g, py::handle a) { return charge_out(to_charge(a, g)); },
          "a"_a, "a with its Z_n entries reduced into [0, n).")
      .def(
          "__eq__", [](const Group& a, const Group& b) { return a == b; }, py::is_operator())
      .def("__hash__", [](const Group& g) { return py::hash(py::str(g.to_string())); })
      .def("__str__", &Group::to_string)
      .def("__repr__", [](const Group& g) { return "Group(" + g.to_string() + ")"; });

  py::enum_<Direction>(s, "Direction",
                       "A leg's direction: out counts its charge +1, in_ counts it -1 (the strings "
                       "'in' and 'out' are accepted wherever a direction is).")
      .value("in_", Direction::in)
      .value("out", Direction::out);
  s.def(
      "flip", [](py::handle d) { return sym::flip(to_direction(d)); }, "direction"_a);
  s.def(
      "sign", [](py::handle d) { return sym::sign(to_direction(d)); }, "direction"_a,
      "+1 for out, -1 for in.");

  py::class_<Leg>(s, "Leg",
                  "Leg(group, sectors, direction='out'): the ordered charge sectors of one index; "
                  "sectors is a list of (charge, dim) pairs or a dict {charge: dim}.")
      .def(py::init([](const Group& g, const py::object& sectors, py::handle direction) {
             return Leg(g, to_sectors(sectors, g), to_direction(direction));
           }),
           "group"_a, "sectors"_a, "direction"_a = "out")
      .def_static(
          "trivial",
          [](std::int64_t dim, py::handle direction) {
            return Leg::trivial(dim, to_direction(direction));
          },
          "dim"_a, "direction"_a = "out", "A leg of the trivial group with one sector of dim.")
      .def_property_readonly("group", &Leg::group)
      .def_property_readonly("direction", &Leg::direction)
      .def_property_readonly("sectors", &sectors_out, "[(charge, dim), ...] in order.")
      .def_property_readonly("num_sectors", &Leg::num_sectors)
      .def_property_readonly("dim", &Leg::dim, "The dense size (sum of the sector dims).")
      .def_property_readonly("is_fused", &Leg::is_fused)
      .def_property_readonly("fused_from", &Leg::fused_from,
                             "The legs fused into this one (InvalidArgumentError if not fused).")
      .def(
          "charge",
          [](const Leg& l, std::int64_t s) { return charge_out(l.charge(checked_sector(l, s))); },
          "sector"_a)
      .def(
          "sector_dim",
          [](const Leg& l, std::int64_t s) { return l.sector_dim(checked_sector(l, s)); },
          "sector"_a)
      .def(
          "offset", [](const Leg& l, std::int64_t s) { return l.offset(checked_sector(l, s)); },
          "sector"_a, "Start of the sector in the dense index.")
      .def(
          "find", [](const Leg& l, py::handle c) { return l.find(to_charge(c, l.group())); },
          "charge"_a, "Index of the sector with this charge, or -1.")
      .def("dual", &Leg::dual, "The same sectors, opposite direction.")
      .def(
          "is_dual", [](const Leg& a, const Leg& b) { return is_dual(a, b); }, "other"_a)
      .def(
          "__eq__", [](const Leg& a, const Leg& b) { return a == b; }, py::is_operator())
      .def("__str__", &Leg::to_string)
      .def("__repr__", [](const Leg& l) { return "Leg(" + l.to_string() + ")"; });
  s.def(
      "is_dual", [](const Leg& a, const Leg& b) { return is_dual(a, b); }, "a"_a, "b"_a,
      "a == b.dual() (contraction compatibility).");
  s.def(
      "fuse_legs",
      [](const std::vector<Leg>& legs, py::handle direction) {
        return sym::fuse_legs(legs, to_direction(direction));
      },
      "legs"_a, "direction"_a = "out",
      "The legs fused into one (its sectors: the reachable charges, sorted).");

  // ---- BlockTensor ----
  py::class_<BlockTensor> bt(
      s, "BlockTensor",
      "A block-sparse tensor: legs, flux and one dense block per stored allowed sector tuple. Make "
      "one with zeros, randn, from_dense or from_blocks.");
  bt.def(py::init<>(), "An undefined BlockTensor (defined is False).")
      .def_static(
          "zeros",
          [](std::vector<Leg> legs, const py::object& flux, py::handle dtype) {
            const Group g = group_of(legs);
            return BlockTensor::zeros(std::move(legs), to_flux(flux, g), dtype_or_f64(dtype));
          },
          "legs"_a, "flux"_a = py::none(), "dtype"_a = py::none(),
          "Every allowed block, zero-filled.")
      .def_static(
          "randn",
          [](std::vector<Leg> legs, std::uint64_t seed, const py::object& flux, py::handle dtype) {
            const Group g = group_of(legs);
            return BlockTensor::randn(std::move(legs), seed, to_flux(flux, g), dtype_or_f64(dtype));
          },
          "legs"_a, "seed"_a = 0, "flux"_a = py::none(), "dtype"_a = py::none(),
          "Every allowed block filled with standard normal values.")
      .def_static(
          "from_dense",
          [](const py::object& dense, std::vector<Leg> legs, const py::object& flux, double tol) {
            const Tensor d = asarray(dense);
            const Group g = group_of(legs);
            const Charge f = to_flux(flux, g);
            return released(elements_of(d),
                            [&] { return BlockTensor::from_dense(d, std::move(legs), f, tol); });
          },
          "dense"_a, "legs"_a, "flux"_a = py::none(), "tol"_a = 0.0,
          "The blocks of a dense tensor; an entry with |x| > tol outside every allowed block is "
          "InvalidArgumentError.")
      .def_static(
          "from_blocks",
          [](std::vector<Leg> legs, const py::dict& blocks, const py::object& flux,
             py::handle dtype) {
            const Group g = group_of(legs);
            std::optional<DType> dt = to_dtype_or_none(dtype);
            std::map<BlockKey, Tensor> bs;
            for (auto [k, v] : blocks) {
              Tensor b = asarray(py::reinterpret_borrow<py::object>(v), dt);
              if (!dt) dt = b.dtype();
              bs.emplace(to_key(k), std::move(b));
            }
            return BlockTensor::from_blocks(std::move(legs), to_flux(flux, g), std::move(bs),
                                            dt ? *dt : DType::f64);
          },
          "legs"_a, "blocks"_a, "flux"_a = py::none(), "dtype"_a = py::none(),
          "From a dict {key tuple: block}; dtype None: the first block's (f64 without blocks). A "
          "key that breaks charge conservation is InvalidArgumentError.")
      .def_property_readonly("defined", &BlockTensor::defined)
      .def_property_readonly("rank", &BlockTensor::rank)
      .def_property_readonly("legs", &BlockTensor::legs)
      .def(
          "leg", [](const BlockTensor& t, std::int64_t i) { return t.leg(checked_leg(t, i)); },
          "i"_a)
      .def_property_readonly("group", &BlockTensor::group)
      .def_property_readonly("flux", [](const BlockTensor& t) { return charge_out(t.flux()); })
      .def_property_readonly("dtype", [](const BlockTensor& t) { return dtype_out(t.dtype()); })
      .def_property_readonly(
          "shape",
          [](const BlockTensor& t) {
            py::tuple r(t.rank());
            for (std::size_t i = 0; i < t.rank(); ++i) r[i] = t.leg(i).dim();
            return r;
          },
          "The dense shape (the legs' dims).")
      .def_property_readonly(
          "blocks",
          [](const BlockTensor& t) {
            py::dict d;
            for (const auto& [k, b] : t.blocks()) d[key_out(k)] = py::cast(b);
            return d;
          },
          "{key tuple: Tensor} of the stored blocks (sorted by key).")
      .def(
          "block", [](const BlockTensor& t, py::handle key) { return t.block(to_key(key)); },
          "key"_a,
          "The stored block, zeros when allowed and not stored; InvalidArgumentError when not "
          "allowed.")
      .def(
          "allowed", [](const BlockTensor& t, py::handle key) { return t.allowed(to_key(key)); },
          "key"_a)
      .def("allowed_keys",
           [](const BlockTensor& t) {
             py::list r;
             for (const BlockKey& k : t.allowed_keys()) r.append(key_out(k));
             return r;
           })
      .def(
          "block_shape",
          [](const BlockTensor& t, py::handle key) {
            const BlockKey k = to_key(key);
            if (k.size() != t.rank())
              throw Error(ErrorKind::InvalidArgument,
                          "tenferro.symmetric.BlockTensor.block_shape: key of length " +
                              std::to_string(k.size()) + " for rank " + std::to_string(t.rank()));
            for (std::size_t i = 0; i < k.size(); ++i) checked_sector(t.leg(i), k[i]);
            return dims_out(t.block_shape(k));
          },
          "key"_a)
      .def_property_readonly("stored_size", &BlockTensor::stored_size)
      .def("to_dense",
           [](const BlockTensor& t) { return released(size_of(t), [&] { return t.to_dense(); }); })
      .def("filled", &BlockTensor::filled, "Every allowed block stored (zeros where missing).")
      .def(
          "requires_grad_",
          [](py::object self, bool on) {
            self.cast<BlockTensor&>().requires_grad_(on);
            return self;
          },
          "requires_grad"_a = true,
          "Marks every stored block as a leaf that requires grad (use filled() first for a "
          "gradient of every allowed block); returns self.")
      .def_property_readonly("requires_grad", &BlockTensor::requires_grad)
      .def_property_readonly("grad", &BlockTensor::grad,
                             "The blocks' gradients after backward() (zeros where none).")
      .def("detach", &BlockTensor::detach)
      .def("conj", [](const BlockTensor& t) { return sym::conj(t); })
      .def("dagger", [](const BlockTensor& t) { return sym::dagger(t); })
      .def(
          "permute",
          [](const BlockTensor& t, py::args axes) {
            const Dims a =
                axes.size() == 1 && !is_index(axes[0]) ? to_dims(axes[0]) : to_dims(axes);
            return sym::permute(t, a);
          },
          "t.permute(1, 0, 2) or t.permute([1, 0, 2])")
      .def("norm", [](const BlockTensor& t) { return sym::norm(t); })
      .def(
          "__add__",
          [](const BlockTensor& a, const BlockTensor& b) {
            return released(size_of(a) + size_of(b), [&] { return sym::add(a, b); });
          },
          py::is_operator())
      .def(
          "__sub__",
          [](const BlockTensor& a, const BlockTensor& b) {
            return released(size_of(a) + size_of(b), [&] { return sym::sub(a, b); });
          },
          py::is_operator())
      .def("__mul__", [](const BlockTensor& t, const py::object& a) { return scaled(t, a, false); })
      .def("__rmul__",
           [](const BlockTensor& t, const py::object& a) { return scaled(t, a, false); })
      .def("__truediv__",
           [](const BlockTensor& t, const py::object& a) { return scaled(t, a, true); })
      .def("__neg__", [](const BlockTensor& t) { return sym::scale(t, Scalar(-1.0)); })
      .def("__str__", &repr_of)
      .def("__repr__", &repr_of);

  // ---- Structure and vector operations ----
  s.def(
      "permute",
      [](const BlockTensor& t, const py::object& axes) { return sym::permute(t, to_dims(axes)); },
      "t"_a, "axes"_a, "Result leg i is t's leg axes[i].");
  s.def(
      "conj", [](const BlockTensor& t) { return sym::conj(t); }, "t"_a,
      "Complex conjugate, every direction flipped, flux negated.");
  s.def(
      "dagger", [](const BlockTensor& t) { return sym::dagger(t); }, "t"_a,
      "conj with the legs reversed.");
  s.def(
      "add",
      [](const BlockTensor& a, const BlockTensor& b) {
        return released(size_of(a) + size_of(b), [&] { return sym::add(a, b); });
      },
      "a"_a, "b"_a);
  s.def(
      "sub",
      [](const BlockTensor& a, const BlockTensor& b) {
        return released(size_of(a) + size_of(b), [&] { return sym::sub(a, b); });
      },
      "a"_a, "b"_a);
  s.def(
      "scale",
      [](const BlockTensor& t, const py::object& alpha) {
        py::object r = scaled(t, alpha, false);
        if (r.ptr() == Py_NotImplemented) scalar_arg(alpha);  // raises the TypeError
        return r;
      },
      "t"_a, "alpha"_a, "alpha * t for a number or a 0-dimensional Tensor (differentiable).");
  s.def(
      "axpy",
      [](const py::object& alpha, const BlockTensor& x, const BlockTensor& y) {
        const Scalar a = number_or_tensor_error(alpha);
        return released(size_of(x) + size_of(y), [&] { return sym::axpy(a, x, y); });
      },
      "alpha"_a, "x"_a, "y"_a, "alpha * x + y.");
  s.def(
      "inner",
      [](const BlockTensor& a, const BlockTensor& b) {
        return released(size_of(a) + size_of(b), [&] { return sym::inner(a, b); });
      },
      "a"_a, "b"_a, "<a, b> = sum conj(a) b, a 0-dimensional Tensor.");
  s.def(
      "norm",
      [](const BlockTensor& t) { return released(size_of(t), [&] { return sym::norm(t); }); },
      "t"_a, "Frobenius norm, a 0-dimensional real Tensor.");
  s.def(
      "trace",
      [](const BlockTensor& t, const py::object& axes_a, const py::object& axes_b) {
        const Dims xa = to_dims(axes_a), xb = to_dims(axes_b);
        return released(size_of(t), [&] { return sym::trace(t, xa, xb); });
      },
      "t"_a, "axes_a"_a, "axes_b"_a,
      "The trace over leg pairs (axes_a[k], axes_b[k]); all legs: a rank-0 BlockTensor.");
  s.def(
      "scalar", [](const BlockTensor& t) { return sym::scalar(t); }, "t"_a,
      "The value of a rank-0 BlockTensor as a 0-dimensional Tensor.");
  s.def(
      "scale_leg",
      [](const BlockTensor& t, std::int64_t axis, const py::object& weights) {
        const std::vector<Tensor> w = to_weights(weights);
        return released(size_of(t), [&] { return sym::scale_leg(t, axis, w); });
      },
      "t"_a, "axis"_a, "weights"_a,
      "t times per-sector weights along leg axis (weights[s]: that sector's dim, or None for "
      "zero).");

  // ---- Fusion ----
  s.def(
      "fuse",
      [](const BlockTensor& t, std::int64_t begin, std::int64_t end, py::handle direction) {
        const Direction d = to_direction(direction);
        return released(size_of(t), [&] { return sym::fuse(t, begin, end, d); });
      },
      "t"_a, "begin"_a, "end"_a, "direction"_a = "out",
      "Legs [begin, end) fused into one leg at begin; split() restores them.");
  s.def(
      "split",
      [](const BlockTensor& t, std::int64_t axis) {
        return released(size_of(t), [&] { return sym::split(t, axis); });
      },
      "t"_a, "axis"_a, "The fused leg axis split back into its parts.");

  // ---- Contraction ----
  s.def(
      "tensordot",
      [](const BlockTensor& a, const BlockTensor& b, const py::object& axes_a,
         const py::object& axes_b) {
        auto [xa, xb] = to_contraction(a, axes_a, axes_b);
        return released(size_of(a) + size_of(b),
                        [&] { return sym::tensordot(a, b, std::move(xa), std::move(xb)); });
      },
      "a"_a, "b"_a, "axes_a"_a, "axes_b"_a = py::none(),
      "Contracts legs axes_a of a with legs axes_b of b (each pair dual). Also "
      "tensordot(a, b, (axes_a, axes_b)) and tensordot(a, b, n) as NumPy.");
  s.def(
      "tensordot_cost",
      [](const BlockTensor& a, const BlockTensor& b, const py::object& axes_a,
         const py::object& axes_b) {
        auto [xa, xb] = to_contraction(a, axes_a, axes_b);
        return sym::tensordot_cost(a, b, std::move(xa), std::move(xb));
      },
      "a"_a, "b"_a, "axes_a"_a, "axes_b"_a = py::none(),
      "Multiply-adds of tensordot(a, b, ...) (block-sparse, from the legs alone).");
  s.def(
      "einsum",
      [](const std::string& spec, py::args operands) {
        const std::vector<BlockTensor> ops = operands_of(operands, "symmetric.einsum");
        return released(size_of(ops),
                        [&] { return sym::einsum(spec, std::span<const BlockTensor>(ops)); });
      },
      "spec"_a,
      "einsum(spec, a, b, ...) or einsum(spec, [a, b, ...]); summed labels on dual legs, each "
      "label at most twice; the order comes from a block-aware path search.");
  py::class_<sym::BlockPath>(s, "BlockPath", "The pairwise order einsum would use and its cost.")
      .def_readonly("pairs", &sym::BlockPath::pairs, "SSA pairs (as tenferro.einsum's path=).")
      .def_readonly("flops", &sym::BlockPath::flops, "Block-sparse multiply-adds along the path.")
      .def_readonly("dense_flops", &sym::BlockPath::dense_flops, "The same path on dense tensors.")
      .def("__repr__", [](const sym::BlockPath& p) {
        std::ostringstream os;
        os << "BlockPath(pairs=[";
        for (std::size_t i = 0; i < p.pairs.size(); ++i)
          os << (i ? ", " : "") << "(" << p.pairs[i].first << ", " << p.pairs[i].second << ")";
        os << "], flops=" << p.flops << ", dense_flops=" << p.dense_flops << ")";
        return os.str();
      });
  s.def(
      "einsum_path",
      [](const std::string& spec, py::args operands) {
        const std::vector<BlockTensor> ops = operands_of(operands, "symmetric.einsum_path");
        py::gil_scoped_release release;  // a search only, no Python object touched
        return sym::einsum_path(spec, std::span<const BlockTensor>(ops));
      },
      "spec"_a, "BlockPath: the order of einsum(spec, ...) with its block-sparse and dense cost.");

  // ---- Decompositions ----
  py::class_<sym::BlockSvd>(s, "BlockSvd",
                            "U, S (a list: one descending Tensor per bond sector), Vh and "
                            "discarded_weight; unpacks as U, S, Vh = svd(...).")
      .def_readonly("U", &sym::BlockSvd::U)
      .def_readonly("S", &sym::BlockSvd::S)
      .def_readonly("Vh", &sym::BlockSvd::Vh)
      .def_readonly("discarded_weight", &sym::BlockSvd::discarded_weight,
                    "svd_truncated: the discarded sum of S^2 over the total (0 for svd).")
      .def("__len__", [](const sym::BlockSvd&) { return 3; })
      .def("__iter__",
           [](const sym::BlockSvd& r) { return py::iter(py::make_tuple(r.U, r.S, r.Vh)); })
      .def("__getitem__",
           [](const sym::BlockSvd& r, const py::object& i) -> py::object {
             // The tuple must outlive the item lookup (an accessor into a temporary read freed
             // memory).
             const py::tuple parts = py::make_tuple(r.U, r.S, r.Vh);
             return parts[i];
           })
      .def("__repr__", [](const sym::BlockSvd& r) {
        std::int64_t k = 0;
        for (const Tensor& v : r.S) k += v.numel();
        return "BlockSvd(" + std::to_string(r.S.size()) + " bond sectors, rank " +
               std::to_string(k) + ", discarded_weight " + std::to_string(r.discarded_weight) + ")";
      });
  s.def(
      "svd",
      [](const BlockTensor& t, std::int64_t row_legs) {
        return released(size_of(t), [&] { return sym::svd(t, row_legs); });
      },
      "t"_a, "row_legs"_a,
      "SVD per charge sector with rows = legs [0, row_legs): BlockSvd (U: row legs + bond (in), "
      "Vh: bond dual + column legs).");
  s.def(
      "svd_truncated",
      [](const BlockTensor& t, std::int64_t row_legs, std::int64_t max_rank, double cutoff,
         std::optional<double> eps) {
        sym::TruncationOptions o;
        o.max_rank = max_rank;
        o.cutoff = cutoff;
        o.degeneracy_eps = eps ? *eps : -1.0;
        return released(size_of(t), [&] { return sym::svd_truncated(t, row_legs, o); });
      },
      "t"_a, "row_legs"_a, "max_rank"_a = 0, "cutoff"_a = 0.0, "degeneracy_eps"_a = py::none(),
      "svd keeping the globally largest values over all sectors: at most max_rank (0: no "
      "limit), each > cutoff * the largest. Not traceable.");
  s.def(
      "qr",
      [](const BlockTensor& t, std::int64_t row_legs) {
        sym::BlockQr r = released(size_of(t), [&] { return sym::qr(t, row_legs); });
        return py::make_tuple(r.Q, r.R);
      },
      "t"_a, "row_legs"_a, "(Q, R) per charge sector.");
  s.def(
      "eigh",
      [](const BlockTensor& t, std::int64_t row_legs) {
        sym::BlockEigh r = released(size_of(t), [&] { return sym::eigh(t, row_legs); });
        return py::make_tuple(r.eigenvalues, r.eigenvectors);
      },
      "t"_a, "row_legs"_a,
      "([eigenvalues per bond sector], eigenvectors) of a Hermitian t (flux 0, column legs the "
      "duals of the row legs).");

  // ---- Krylov solvers (the map is called with the GIL held, as in tenferro.eigsh) ----
  s.def(
      "eigsh",
      [](py::function f, const BlockTensor& x0, std::int64_t k, const std::string& which,
         const std::string& method, std::optional<double> tol, std::int64_t krylov_dim,
         std::int64_t max_restarts, bool verify_multiplicity, py::object preconditioner,
         bool require_convergence, bool eager) {
        EigshOptions o =
            eigsh_options(which, method, tol, krylov_dim, max_restarts, verify_multiplicity,
                          preconditioner, require_convergence, eager);
        sym::BlockEigshResult r = sym::eigsh(block_map(std::move(f), "symmetric.eigsh"), x0, k, o);
        return py::make_tuple(r.eigenvalues, r.eigenvectors, krylov_info(r.info));
      },
      "f"_a, "x0"_a, "k"_a = 1, py::kw_only(), "which"_a = "smallest_real", "method"_a = "lanczos",
      "tol"_a = py::none(), "krylov_dim"_a = 0, "max_restarts"_a = 200,
      "verify_multiplicity"_a = true, "preconditioner"_a = py::none(),
      "require_convergence"_a = true, "eager"_a = false,
      "(eigenvalues, [eigenvectors], info): k eigenpairs of the Hermitian map f (BlockTensor -> "
      "BlockTensor with x0's legs and flux). A preconditioner receives and returns the flat "
      "vector of x0's allowed blocks.");
  s.def(
      "linsolve",
      [](py::function f, const BlockTensor& b, std::optional<BlockTensor> x0,
         const std::string& method, std::optional<double> tol, std::int64_t max_iterations,
         std::int64_t krylov_dim, bool require_convergence) {
        LinsolveOptions o = linsolve_options(method, tol, max_iterations, krylov_dim, py::none(),
                                             require_convergence);
        sym::BlockLinsolveResult r = sym::linsolve(block_map(std::move(f), "symmetric.linsolve"), b,
                                                   x0 ? *x0 : BlockTensor(), o);
        return py::make_tuple(r.x, krylov_info(r.info));
      },
      "f"_a, "b"_a, "x0"_a = py::none(), py::kw_only(), "method"_a = "gmres", "tol"_a = py::none(),
      "max_iterations"_a = 1000, "krylov_dim"_a = 30, "require_convergence"_a = true,
      "(x, info) with f(x) = b.");
  s.def(
      "exponentiate",
      [](py::function f, std::complex<double> t, const BlockTensor& x, bool hermitian,
         std::int64_t krylov_dim, std::optional<double> tol, std::int64_t max_steps) {
        ExponentiateOptions o =
            exponentiate_options(hermitian, krylov_dim, tol, max_steps, py::none());
        sym::BlockExponentiateResult r =
            sym::exponentiate(block_map(std::move(f), "symmetric.exponentiate"), t, x, o);
        return py::make_tuple(r.x, krylov_info(r.info));
      },
      "f"_a, "t"_a, "x"_a, py::kw_only(), "hermitian"_a = false, "krylov_dim"_a = 30,
      "tol"_a = py::none(), "max_steps"_a = 10000, "(exp(t f) x, info).");

  // ---- Traced programs ----
  py::class_<sym::BlockProgram>(s, "BlockProgram",
                                "A function of BlockTensors traced once (trace_blocks): its "
                                "program's inputs and outputs are the blocks, in order.")
      .def_readonly("program", &sym::BlockProgram::program)
      .def_readonly("input_structures", &sym::BlockProgram::input_structures)
      .def_readonly("output_structures", &sym::BlockProgram::output_structures)
      .def(
          "flatten_inputs",
          [](const sym::BlockProgram& p, const std::vector<BlockTensor>& inputs) {
            return p.flatten_inputs(inputs);
          },
          "inputs"_a, "The blocks of inputs in program order.")
      .def(
          "unflatten_outputs",
          [](const sym::BlockProgram& p, const std::vector<Tensor>& outputs) {
            return p.unflatten_outputs(outputs);
          },
          "outputs"_a, "BlockTensors from the program's output tensors.")
      .def(
          "run",
          [](const sym::BlockProgram& p, Runtime& rt, const std::vector<BlockTensor>& inputs) {
            return released(size_of(inputs),
                            [&] { return p.run(rt, std::span<const BlockTensor>(inputs)); });
          },
          "runtime"_a, "inputs"_a,
          "Runs on runtime (prepared there the first time; the plan is kept per runtime and "
          "epoch): a list of BlockTensors.");
  s.def(
      "trace_blocks",
      [](py::function f, const std::vector<BlockTensor>& examples) {
        // f runs once, now, with the GIL held (tracing runs only shape rules).
        sym::BlockFn fn = [&f](std::span<const BlockTensor> in) {
          py::tuple args(in.size());
          for (std::size_t k = 0; k < in.size(); ++k) args[k] = py::cast(in[k]);
          py::object r = f(*args);
          if (py::isinstance<BlockTensor>(r))
            return std::vector<BlockTensor>{r.cast<BlockTensor>()};
          if (py::isinstance<py::tuple>(r) || py::isinstance<py::list>(r))
            return to_blocks_list(r, "symmetric.trace_blocks");
          result_block(r, "symmetric.trace_blocks");  // raises the TypeError
          return std::vector<BlockTensor>{};
        };
        return sym::trace_blocks(fn, examples);
      },
      "f"_a, "examples"_a,
      "Traces f(*blocktensors) -> BlockTensor or tuple on symbolic blocks shaped like examples "
      "(their values are not used); returns a BlockProgram.");
}

}  // namespace tenferro::python
