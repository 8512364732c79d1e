// einsum, einsum_path and prepare_einsum (einsum.hpp) from Python: NumPy's spec strings, NumPy's
// sublist form einsum(a, [0, 1], b, [1, 2], [0, 2]), the network form einsum_path(inputs, output,
// size_dict) of opt_einsum/cotengra, every EinsumOptions field as a keyword, explicit paths in the
// SSA form (path=) and NumPy's linear form (optimize=). docs/python.md, "einsum".
//
// Note [Python einsum labels]: a label list holds ints (>= 0, NumPy's sublists) or any hashable
// objects (strings, tuples, ...), and at most one Ellipsis. When every label is an int the C++
// integer labels are the ints themselves, so C++ messages name them as written. Otherwise the
// distinct labels of the inputs are numbered 0, 1, ... in sorted order (first appearance when
// they do not sort, e.g. ints mixed with strings), and a C++ error that names labels gets a
// legend "id = label" appended. Without an output list the output is the labels that appear exactly
// once, by increasing id (NumPy's rule for ints; opt_einsum's sorted order for strings), after the
// '...' dimensions. The C++ integer form has no '...': the binding expands an Ellipsis into one
// fresh label per broadcast dimension, right-aligned across operands as NumPy does, and drops
// (squeeze) an operand's size-1 broadcast dimension where another operand has a larger one, which
// is what broadcasting computes. Broadcast dimensions absent from an explicit output are summed, as
// in the spec form.
//
// Note [Einsum paths in Python]: `path=[(i, j), ...]` is EinsumOptions::path, SSA ids (inputs
// 0..n-1, step k's result n+k), and EinsumPath.path returns that form. `optimize=` takes NumPy's
// ['einsum_path', (0, 1), ...] or opt_einsum's [(0, 1), ...] "linear" form, where a pair names
// positions in the list of remaining operands and the result goes to its end; the binding converts
// it to SSA ids (a 1-tuple moves an operand to the end, a k-tuple contracts left to right), and
// EinsumPath.linear_path converts back. optimize=True/False/'greedy'/'optimal'/any strategy name
// picks a strategy instead (False, NumPy's "no optimisation", is left to right: 'sequential').
//
// GIL (Note [GIL policy]): einsum_path and prepare_einsum only search and lower, touching no
// Python object, so they always release the GIL around the C++ call (a 'hyper' search may run
// for seconds). einsum follows the size rule of call() and also releases it whenever the search
// may be long (random_greedy, hyper, the exact search over more than 10 operands) without an
// explicit path.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"

namespace tenferro::python {

namespace {

[[noreturn]] void invalid(const char* fn, const std::string& what) {
  throw Error(ErrorKind::InvalidArgument, std::string(fn) + ": " + what);
}

std::string text_of(py::handle h) { return std::string(py::repr(h)); }

// ---------------------------------------------------------------------------------------------
// Options

/// A real Python number (int, float, NumPy scalar) as a double; TypeError for anything else.
double real_number(py::handle h, const char* fn, const char* what) {
  if (!PyNumber_Check(h.ptr()) || PyComplex_Check(h.ptr()) || py::isinstance<Tensor>(h))
    throw py::type_error(std::string(fn) + ": " + what + " must be a real number, got " +
                         text_of(h));
  const double v = PyFloat_AsDouble(h.ptr());  // ints too; OverflowError beyond double's range
  if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

/// An int option; a value beyond int keeps its sign (the C++ checks report negatives).
int int_option(py::handle h, const char* fn, const char* what) {
  if (!PyIndex_Check(h.ptr()))
    throw py::type_error(std::string(fn) + ": " + what + " must be an int, got " + text_of(h));
  const std::int64_t v = to_int64(h);
  return static_cast<int>(std::clamp<std::int64_t>(v, std::numeric_limits<int>::min(),
                                                   std::numeric_limits<int>::max()));
}

std::uint64_t seed_option(py::handle h, const char* fn) {
  if (!PyIndex_Check(h.ptr()))
    throw py::type_error(std::string(fn) + ": seed must be an int, got " + text_of(h));
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
  if (!i) throw py::error_already_set();
  const unsigned long long v = PyLong_AsUnsignedLongLong(i.ptr());
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    invalid(fn, "seed " + text_of(h) + " is out of range; expected an int in [0, 2**64)");
  }
  return v;
}

std::optional<EinsumStrategy> strategy_named(const std::string& s) {
  if (s == "auto" || s == "automatic") return EinsumStrategy::automatic;
  if (s == "optimal") return EinsumStrategy::optimal;
  if (s == "greedy") return EinsumStrategy::greedy;
  if (s == "sequential") return EinsumStrategy::sequential;
  if (s == "random_greedy" || s == "random-greedy") return EinsumStrategy::random_greedy;
  if (s == "hyper") return EinsumStrategy::hyper;
  if (s == "given") return EinsumStrategy::given;
  return std::nullopt;
}

constexpr const char* kStrategies =
    "'auto', 'optimal', 'greedy', 'sequential', 'random_greedy' or 'hyper'";

EinsumStrategy strategy_of(py::handle h, const char* fn) {
  if (!py::isinstance<py::str>(h))
    throw py::type_error(std::string(fn) + ": strategy must be a str (" + kStrategies + "), got " +
                         text_of(h));
  const auto s = h.cast<std::string>();
  if (auto st = strategy_named(s)) return *st;
  invalid(fn, std::string("strategy must be ") + kStrategies + ", not '" + s + "'");
}

PathObjective objective_of(py::handle h, const char* fn) {
  if (!py::isinstance<py::str>(h))
    throw py::type_error(std::string(fn) + ": objective must be 'flops', 'size' or 'combo', got " +
                         text_of(h));
  const auto s = h.cast<std::string>();
  if (s == "flops") return PathObjective::flops;
  if (s == "size") return PathObjective::size;
  if (s == "combo") return PathObjective::combo;
  invalid(fn, "objective must be 'flops', 'size' or 'combo', not '" + s + "'");
}

bool is_label_sequence(py::handle h) {
  return PyList_Check(h.ptr()) || PyTuple_Check(h.ptr()) || PyRange_Check(h.ptr());
}

/// A list of index tuples: path= pairs or optimize= entries.
std::vector<std::vector<std::int64_t>> index_tuples(py::handle h, const char* fn,
                                                    const char* what) {
  std::vector<std::vector<std::int64_t>> out;
  std::size_t k = 0;
  for (py::handle e : h) {
    if (py::isinstance<py::str>(e) || !PySequence_Check(e.ptr()))
      invalid(fn, std::string(what) + " entry " + std::to_string(k) + " is " + text_of(e) +
                      "; expected a tuple of ints such as (0, 1)");
    std::vector<std::int64_t> t;
    for (py::handle i : e) {
      if (!PyIndex_Check(i.ptr()))
        throw py::type_error(std::string(fn) + ": " + what + " entry " + std::to_string(k) +
                             " holds " + text_of(i) + "; expected ints");
      t.push_back(to_int64(i));
    }
    out.push_back(std::move(t));
    ++k;
  }
  return out;
}

std::vector<std::pair<int, int>> ssa_path(py::handle h, const char* fn) {
  std::vector<std::pair<int, int>> out;
  const auto tuples = index_tuples(h, fn, "path");
  for (std::size_t k = 0; k < tuples.size(); ++k) {
    const auto& t = tuples[k];
    if (t.size() != 2)
      invalid(fn, "path entry " + std::to_string(k) + " has " + std::to_string(t.size()) +
                      " ids; expected a pair (i, j) of SSA ids (inputs 0..n-1, step k's result "
                      "n+k)");
    for (std::int64_t id : t)
      if (id < 0 || id > std::numeric_limits<int>::max())
        invalid(fn, "path entry " + std::to_string(k) + " names id " + std::to_string(id) +
                        "; expected SSA ids >= 0 (inputs 0..n-1, step k's result n+k)");
    out.emplace_back(static_cast<int>(t[0]), static_cast<int>(t[1]));
  }
  return out;
}

/// Note [Einsum paths in Python]: NumPy/opt_einsum's linear path as SSA pairs for n operands.
std::vector<std::pair<int, int>> linear_to_ssa(const std::vector<std::vector<std::int64_t>>& lin,
                                               std::size_t n, const char* fn) {
  std::vector<int> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  int next = static_cast<int>(n);
  std::vector<std::pair<int, int>> ssa;
  for (std::size_t k = 0; k < lin.size(); ++k) {
    const auto& entry = lin[k];
    if (entry.empty()) invalid(fn, "optimize path entry " + std::to_string(k) + " is empty");
    std::vector<std::int64_t> pos = entry;
    for (std::size_t i = 0; i < pos.size(); ++i) {
      if (pos[i] < 0 || pos[i] >= static_cast<std::int64_t>(ids.size()))
        invalid(fn, "optimize path entry " + std::to_string(k) + " names position " +
                        std::to_string(pos[i]) + " but " + std::to_string(ids.size()) +
                        " operand(s) remain at that step; a linear path names positions in the "
                        "list of remaining operands, each result appended at its end");
      for (std::size_t j = 0; j < i; ++j)
        if (pos[j] == pos[i])
          invalid(fn, "optimize path entry " + std::to_string(k) + " names position " +
                          std::to_string(pos[i]) + " twice");
    }
    std::vector<int> taken;
    for (std::int64_t p : pos) taken.push_back(ids[static_cast<std::size_t>(p)]);
    std::sort(pos.begin(), pos.end(), std::greater<>());
    for (std::int64_t p : pos) ids.erase(ids.begin() + p);
    int cur = taken[0];
    for (std::size_t i = 1; i < taken.size(); ++i) {
      ssa.emplace_back(cur, taken[i]);
      cur = next++;
    }
    ids.push_back(cur);
  }
  return ssa;
}

/// SSA pairs as a linear path (each pair's positions in the list of remaining operands).
std::vector<std::pair<int, int>> ssa_to_linear(const EinsumPath& p) {
  std::vector<int> ids(p.steps.size() + 1);
  std::iota(ids.begin(), ids.end(), 0);
  int next = static_cast<int>(ids.size());
  std::vector<std::pair<int, int>> out;
  for (const EinsumStep& s : p.steps) {
    const auto i = std::find(ids.begin(), ids.end(), s.lhs);
    const auto j = std::find(ids.begin(), ids.end(), s.rhs);
    out.emplace_back(static_cast<int>(i - ids.begin()), static_cast<int>(j - ids.begin()));
    std::erase_if(ids, [&](int id) { return id == s.lhs || id == s.rhs; });
    ids.push_back(next++);
  }
  return out;
}

/// Keyword options of einsum, einsum_path and prepare_einsum (every EinsumOptions field, plus
/// NumPy's optimize=). The linear path waits for the operand count (finish()).
struct Options {
  EinsumOptions o;
  std::optional<std::vector<std::vector<std::int64_t>>> linear;

  EinsumOptions finish(std::size_t operands, const char* fn) const {
    EinsumOptions r = o;
    if (linear) r.path = linear_to_ssa(*linear, operands, fn);
    return r;
  }
};

/// The options in kw; keywords in `own` belong to the caller; any other is TypeError.
Options parse_options(const py::kwargs& kw, const char* fn,
                      std::initializer_list<const char*> own = {}) {
  Options r;
  py::object strategy = py::none(), optimize = py::none(), path = py::none();
  for (auto item : kw) {
    const auto key = item.first.cast<std::string>();
    py::handle v = item.second;
    if (std::find_if(own.begin(), own.end(), [&](const char* s) { return key == s; }) != own.end())
      continue;
    if (key == "strategy")
      strategy = py::reinterpret_borrow<py::object>(v);
    else if (key == "optimize")
      optimize = py::reinterpret_borrow<py::object>(v);
    else if (key == "path")
      path = py::reinterpret_borrow<py::object>(v);
    else if (key == "optimal_limit")
      r.o.optimal_limit = int_option(v, fn, "optimal_limit");
    else if (key == "memory_limit")
      r.o.memory_limit = real_number(v, fn, "memory_limit");
    else if (key == "objective")
      r.o.objective = objective_of(v, fn);
    else if (key == "combo_factor")
      r.o.combo_factor = real_number(v, fn, "combo_factor");
    else if (key == "time_budget")
      r.o.time_budget = real_number(v, fn, "time_budget");
    else if (key == "trials")
      r.o.trials = int_option(v, fn, "trials");
    else if (key == "seed")
      r.o.seed = seed_option(v, fn);
    else if (key == "threads")
      r.o.threads = int_option(v, fn, "threads");
    else
      throw py::type_error(std::string(fn) + "() got an unexpected keyword argument '" + key + "'");
  }
  if (!strategy.is_none()) r.o.strategy = strategy_of(strategy, fn);
  if (!path.is_none()) r.o.path = ssa_path(path, fn);
  if (!optimize.is_none()) {
    if (!strategy.is_none())
      invalid(fn, "give strategy= or optimize=, not both (optimize= is NumPy's spelling)");
    if (PyBool_Check(optimize.ptr())) {
      // NumPy: True is its greedy search, False no search at all (one loop nest): left to right.
      r.o.strategy =
          optimize.ptr() == Py_True ? EinsumStrategy::greedy : EinsumStrategy::sequential;
    } else if (py::isinstance<py::str>(optimize)) {
      const auto s = optimize.cast<std::string>();
      auto st = strategy_named(s);
      if (!st)
        invalid(fn, std::string("optimize must be True, False, a strategy name (") + kStrategies +
                        ") or a path ['einsum_path', (0, 1), ...], not '" + s + "'");
      r.o.strategy = *st;
    } else if (PyList_Check(optimize.ptr()) || PyTuple_Check(optimize.ptr())) {
      if (!path.is_none())
        invalid(fn, "give path= (SSA ids) or a linear path in optimize=, not both");
      py::sequence seq = optimize.cast<py::sequence>();
      py::list entries;
      for (std::size_t k = 0; k < seq.size(); ++k) {
        py::object e = seq[k];
        if (k == 0 && py::isinstance<py::str>(e) && e.cast<std::string>() == "einsum_path")
          continue;  // NumPy's einsum_path() result starts with this tag
        entries.append(e);
      }
      r.linear = index_tuples(entries, fn, "optimize path");
    } else {
      throw py::type_error(std::string(fn) +
                           ": optimize must be True, False, a strategy name or a path such as "
                           "['einsum_path', (0, 1)], got " +
                           text_of(optimize));
    }
  }
  return r;
}

/// Whether einsum's path search for n operands may take long (then it runs without the GIL
/// whatever the operand sizes): random_greedy and hyper, and the exact search beyond 10 operands.
bool long_search(const EinsumOptions& o, std::size_t n) {
  if (!o.path.empty()) return false;
  const bool optimal = o.strategy == EinsumStrategy::optimal ||
                       (o.strategy == EinsumStrategy::automatic &&
                        n <= static_cast<std::size_t>(std::max(o.optimal_limit, 0)));
  return o.strategy == EinsumStrategy::random_greedy || o.strategy == EinsumStrategy::hyper ||
         (optimal && n > 10);
}

// ---------------------------------------------------------------------------------------------
// Labels (Note [Python einsum labels])

/// One label list as given: its labels and the position of its Ellipsis (-1: none).
struct RawTerm {
  std::vector<py::object> labels;  // without the Ellipsis
  std::int64_t ellipsis = -1;
};

/// Which label list a RawTerm is, for messages (built only on error).
struct TermName {
  enum { sublist, network, output } kind;
  std::size_t index = 0;
  std::string text() const {
    switch (kind) {
      case sublist:
        return "argument " + std::to_string(2 * index + 1) + " (operand " + std::to_string(index) +
               "'s labels)";
      case network:
        return "inputs[" + std::to_string(index) + "]";
      case output:
        break;
    }
    return "the output list";
  }
};

RawTerm raw_term(py::handle h, const char* fn, TermName name) {
  bool ok = is_label_sequence(h);
  if (!ok && py::isinstance<py::array>(h)) {
    auto a = py::reinterpret_borrow<py::array>(h);
    ok = a.ndim() == 1 && (a.dtype().kind() == 'i' || a.dtype().kind() == 'u');
  }
  if (!ok)
    throw py::type_error(
        std::string(fn) + ": " + name.text() +
        " must be a label list (a list or tuple of ints or other hashable "
        "labels), got " +
        std::string(Py_TYPE(h.ptr())->tp_name) +
        (py::isinstance<py::str>(h) ? " " + text_of(h) + " (write it as a list)" : std::string()));
  RawTerm t;
  for (py::handle e : h) {
    if (e.ptr() == Py_Ellipsis) {
      if (t.ellipsis >= 0) invalid(fn, name.text() + " holds a second '...'; expected at most one");
      t.ellipsis = static_cast<std::int64_t>(t.labels.size());
      continue;
    }
    t.labels.push_back(py::reinterpret_borrow<py::object>(e));
  }
  return t;
}

/// Label lists bound to C++ integer labels.
struct Labels {
  std::vector<EinsumLabels> inputs;
  EinsumLabels output;
  /// Per operand: axes to squeeze (size-1 broadcast dimensions), decreasing.
  std::vector<std::vector<std::int64_t>> squeeze;
  /// repr of the label of each id when the labels are not all ints (else empty).
  std::vector<std::string> legend;

  bool needs_squeeze() const {
    return std::any_of(squeeze.begin(), squeeze.end(), [](const auto& s) { return !s.empty(); });
  }
};

/// `shapes` null: the network form (sizes come from size_dict; no Ellipsis).
Labels bind_labels(const char* fn, const std::vector<RawTerm>& in,
                   const std::optional<RawTerm>& out, const std::vector<Dims>* shapes) {
  Labels r;
  bool integer = true, any_ellipsis = false;
  auto scan = [&](const RawTerm& t) {
    any_ellipsis = any_ellipsis || t.ellipsis >= 0;
    for (const py::object& l : t.labels) integer = integer && PyIndex_Check(l.ptr());
  };
  for (const RawTerm& t : in) scan(t);
  if (out) scan(*out);

  std::vector<std::vector<std::int64_t>> ids(in.size());
  std::int64_t fresh = 0;  // first id free for the broadcast dimensions
  if (integer) {
    std::int64_t top = -1;
    for (std::size_t k = 0; k < in.size(); ++k)
      for (const py::object& l : in[k].labels) {
        ids[k].push_back(to_int64(l));
        top = std::max(top, ids[k].back());
      }
    if (any_ellipsis && top > std::numeric_limits<std::int64_t>::max() - 4096)
      invalid(fn, "the labels leave no room for the labels of '...' (the largest is " +
                      std::to_string(top) + "); use labels below 2**63 - 4096 with '...'");
    fresh = any_ellipsis ? top + 1 : 0;
    if (out)
      for (const py::object& l : out->labels) r.output.push_back(to_int64(l));
  } else {
    py::dict number;
    py::list distinct;
    for (const RawTerm& t : in)
      for (const py::object& l : t.labels)
        if (!number.contains(l)) {
          number[l] = py::none();
          distinct.append(l);
        }
    try {
      distinct = py::module_::import("builtins").attr("sorted")(distinct).cast<py::list>();
    } catch (py::error_already_set&) {  // labels that do not sort: first appearance
    }
    for (std::size_t i = 0; i < distinct.size(); ++i) {
      number[distinct[i]] = py::int_(i);
      r.legend.push_back(text_of(distinct[i]));
    }
    for (std::size_t k = 0; k < in.size(); ++k)
      for (const py::object& l : in[k].labels) ids[k].push_back(number[l].cast<std::int64_t>());
    fresh = static_cast<std::int64_t>(distinct.size());
    if (out)
      for (std::size_t j = 0; j < out->labels.size(); ++j) {
        const py::object& l = out->labels[j];
        if (!number.contains(l))
          invalid(fn, "output label " + text_of(l) + " (output entry " + std::to_string(j) +
                          ") does not appear in any input; expected output labels taken from "
                          "the inputs");
        r.output.push_back(number[l].cast<std::int64_t>());
      }
  }

  // Broadcast dimensions of '...': one fresh label each, right-aligned (as NumPy).
  std::int64_t width = 0;
  std::vector<std::int64_t> ell(in.size(), 0);
  std::vector<std::int64_t> bsize;
  r.squeeze.assign(in.size(), {});
  if (any_ellipsis) {
    if (shapes == nullptr)
      invalid(fn, "'...' (Ellipsis) needs operand shapes; the network form takes explicit labels");
    for (std::size_t k = 0; k < in.size(); ++k) {
      if (in[k].ellipsis < 0) continue;
      const auto rank = static_cast<std::int64_t>((*shapes)[k].size());
      const auto named = static_cast<std::int64_t>(in[k].labels.size());
      if (rank < named)
        invalid(fn, "operand " + std::to_string(k) + " has rank " + std::to_string(rank) +
                        " but its label list names " + std::to_string(named) +
                        " dimension(s) plus '...'; expected rank >= " + std::to_string(named));
      ell[k] = rank - named;
      width = std::max(width, ell[k]);
    }
    bsize.assign(static_cast<std::size_t>(width), -1);
    std::vector<std::int64_t> from(static_cast<std::size_t>(width), -1);
    for (std::size_t k = 0; k < in.size(); ++k)
      for (std::int64_t e = 0; e < ell[k]; ++e) {
        const auto p = static_cast<std::size_t>(width - ell[k] + e);
        const std::int64_t sz = (*shapes)[k][static_cast<std::size_t>(in[k].ellipsis + e)];
        std::int64_t& have = bsize[p];
        if (have >= 0 && have != sz && have != 1 && sz != 1)
          throw Error(ErrorKind::ShapeMismatch,
                      std::string(fn) + ": broadcast dimension of '...' has size " +
                          std::to_string(sz) + " in operand " + std::to_string(k) + " (axis " +
                          std::to_string(in[k].ellipsis + e) + ") but size " +
                          std::to_string(have) + " in operand " + std::to_string(from[p]) +
                          "; expected equal sizes or 1");
        if (have < 0 || have == 1) {
          have = sz;
          from[p] = static_cast<std::int64_t>(k);
        }
      }
  }
  auto ell_label = [&](std::int64_t p) { return fresh + p; };

  for (std::size_t k = 0; k < in.size(); ++k) {
    EinsumLabels labels;
    for (std::size_t j = 0; j <= ids[k].size(); ++j) {
      if (static_cast<std::int64_t>(j) == in[k].ellipsis)
        for (std::int64_t e = 0; e < ell[k]; ++e) {
          const std::int64_t p = width - ell[k] + e;
          const std::int64_t axis = in[k].ellipsis + e;
          if ((*shapes)[k][static_cast<std::size_t>(axis)] == 1 &&
              bsize[static_cast<std::size_t>(p)] != 1)
            r.squeeze[k].insert(r.squeeze[k].begin(), axis);  // decreasing
          else
            labels.push_back(ell_label(p));
        }
      if (j < ids[k].size()) labels.push_back(ids[k][j]);
    }
    r.inputs.push_back(std::move(labels));
  }

  if (out) {
    if (out->ellipsis >= 0) {
      EinsumLabels o;
      for (std::size_t j = 0; j <= r.output.size(); ++j) {
        if (static_cast<std::int64_t>(j) == out->ellipsis)
          for (std::int64_t p = 0; p < width; ++p) o.push_back(ell_label(p));
        if (j < r.output.size()) o.push_back(r.output[j]);
      }
      r.output = std::move(o);
    }
  } else {
    // Implicit output: the broadcast dimensions, then the labels seen exactly once, increasing.
    for (std::int64_t p = 0; p < width; ++p) r.output.push_back(ell_label(p));
    std::vector<std::int64_t> all;
    for (const auto& v : ids) all.insert(all.end(), v.begin(), v.end());
    std::sort(all.begin(), all.end());
    for (std::size_t i = 0; i < all.size();) {
      std::size_t j = i;
      while (j < all.size() && all[j] == all[i]) ++j;
      if (j - i == 1) r.output.push_back(all[i]);
      i = j;
    }
  }
  return r;
}

// Note [Sublists through the plan cache]: eager einsum(spec, ...) keeps a per-thread plan cache
// (Note [Einsum plan cache] in src/einsum/einsum.cpp) that the C++ integer-label form lacks, so a
// sublist einsum in a loop would search its path and lower at every call. When the labels fit in
// 52 letters, the binding therefore writes them as a spec (the i-th smallest id as the i-th letter
// in ASCII order, A-Z then a-z, so the dense label order, hence the path and lowering, are those
// of the integer form) and calls the spec form. A planning error (InvalidArgument, ShapeMismatch,
// DTypeMismatch: raised before any op runs) is raised again by the integer form, whose message
// names operands and label-list entries instead of positions in the generated spec.

/// The spec of `l` in letters, or "" when it needs more than 52 letters (or holds a negative label
/// or an output label that is no input label: the integer form reports those).
std::string letter_spec(const Labels& l) {
  std::vector<std::int64_t> ids;
  for (const EinsumLabels& t : l.inputs) ids.insert(ids.end(), t.begin(), t.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > 52 || (!ids.empty() && ids.front() < 0)) return {};
  std::string spec;
  auto put = [&](std::int64_t id) {
    const auto it = std::lower_bound(ids.begin(), ids.end(), id);
    if (it == ids.end() || *it != id) return false;
    const auto k = static_cast<char>(it - ids.begin());
    spec += k < 26 ? static_cast<char>('A' + k) : static_cast<char>('a' + (k - 26));
    return true;
  };
  for (std::size_t k = 0; k < l.inputs.size(); ++k) {
    if (k) spec += ',';
    for (std::int64_t id : l.inputs[k]) put(id);
  }
  spec += "->";
  for (std::int64_t id : l.output)
    if (!put(id)) return {};
  return spec;
}

/// f() with the label legend appended to a tenferro error that names labels (non-integer labels).
template <class F>
auto with_legend(const Labels& l, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (l.legend.empty() || e.message().find("label") == std::string::npos) throw;
    std::string s = e.message() + " (label ids: ";
    const std::size_t shown = std::min<std::size_t>(l.legend.size(), 32);
    for (std::size_t i = 0; i < shown; ++i)
      s += (i ? ", " : "") + std::to_string(i) + " = " + l.legend[i];
    if (shown < l.legend.size()) s += ", ...";
    throw Error(e.kind(), s + ")");
  }
}

/// The interleaved sublist form: operands at even positions, label lists at odd ones, an
/// optional final output list.
struct Sublists {
  std::vector<py::object> operands;
  std::vector<RawTerm> terms;
  std::optional<RawTerm> output;
};

Sublists sublists(const py::args& args, const char* fn) {
  Sublists s;
  const std::size_t n = args.size() / 2;
  if (n == 0)
    throw py::type_error(std::string(fn) +
                         "() takes a spec string and operands, or operands interleaved with "
                         "label lists: " +
                         fn + "(a, [0, 1], b, [1, 2], [0, 2])");
  for (std::size_t k = 0; k < n; ++k) {
    s.operands.push_back(args[2 * k]);
    s.terms.push_back(raw_term(args[2 * k + 1], fn, {TermName::sublist, k}));
  }
  if (args.size() % 2 == 1) s.output = raw_term(args[args.size() - 1], fn, {TermName::output});
  return s;
}

bool is_mapping(py::handle h) {
  if (PyDict_Check(h.ptr())) return true;
  static PyObject* mapping =
      py::object(py::module_::import("collections.abc").attr("Mapping")).release().ptr();
  const int r = PyObject_IsInstance(h.ptr(), mapping);
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

/// The network form's label lists: `inputs` a sequence of label lists, `output` a list or None.
std::pair<std::vector<RawTerm>, std::optional<RawTerm>> network_terms(const py::object& inputs,
                                                                      const py::object& output,
                                                                      const char* fn) {
  if (py::isinstance<py::str>(inputs) || !PySequence_Check(inputs.ptr()))
    throw py::type_error(std::string(fn) + ": inputs must be a list of label lists, got " +
                         text_of(inputs));
  std::vector<RawTerm> terms;
  std::size_t k = 0;
  for (py::handle t : inputs) terms.push_back(raw_term(t, fn, {TermName::network, k++}));
  if (terms.empty()) invalid(fn, "inputs is empty; expected at least one operand's label list");
  std::optional<RawTerm> out;
  if (!output.is_none()) out = raw_term(output, fn, {TermName::output});
  return {std::move(terms), std::move(out)};
}

/// Operand shapes of the network form from size_dict (label -> size).
std::vector<Dims> shapes_from_sizes(const std::vector<RawTerm>& terms, const py::object& sizes,
                                    const char* fn) {
  if (!is_mapping(sizes))
    throw py::type_error(std::string(fn) + ": size_dict must be a dict label -> size, got " +
                         text_of(sizes));
  std::vector<Dims> shapes;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    if (terms[k].ellipsis >= 0)
      invalid(fn, "inputs[" + std::to_string(k) +
                      "] holds '...' (Ellipsis); the network form takes explicit labels only");
    Dims shape;
    for (std::size_t j = 0; j < terms[k].labels.size(); ++j) {
      const py::object& l = terms[k].labels[j];
      if (!sizes.contains(l))
        invalid(fn, "label " + text_of(l) + " of operand " + std::to_string(k) + " (entry " +
                        std::to_string(j) + ") is not in size_dict");
      py::object v = sizes[l];
      if (!PyIndex_Check(v.ptr()))
        throw py::type_error(std::string(fn) + ": size_dict[" + text_of(l) + "] is " + text_of(v) +
                             "; expected an int");
      const std::int64_t d = to_int64(v);
      if (d < 0)
        invalid(fn,
                "size_dict[" + text_of(l) + "] is " + std::to_string(d) + "; expected a size >= 0");
      shape.push_back(d);
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

Dims shape_of(py::handle h) {
  if (py::isinstance<Tensor>(h)) return h.cast<const Tensor&>().shape();
  if (py::hasattr(h, "shape")) return to_dims(h.attr("shape"));
  return to_dims(py::reinterpret_borrow<py::object>(h));
}

void drop_axes(Dims& shape, const std::vector<std::int64_t>& axes) {
  Dims out;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) == axes.end())
      out.push_back(shape[i]);
  shape = out;
}

std::vector<DType> dtypes_of(const py::object& dtypes, std::size_t n) {
  if (dtypes.is_none()) return std::vector<DType>(n, DType::f64);
  std::vector<DType> dt;
  if (PyList_Check(dtypes.ptr()) || PyTuple_Check(dtypes.ptr()))
    for (py::handle d : dtypes) dt.push_back(to_dtype(d));
  else
    dt.push_back(to_dtype(dtypes));  // one dtype for every operand
  return dt;
}

py::list pairs(const std::vector<std::pair<int, int>>& v) {
  py::list l;
  for (const auto& [a, b] : v) l.append(py::make_tuple(a, b));
  return l;
}

/// The keyword argument `name`, or the positional one at `pos`, or `fallback`; TypeError when
/// both are given.
py::object slot(const py::args& args, std::size_t pos, const py::kwargs& kw, const char* name,
                const char* fn, py::object fallback = py::none()) {
  const bool in_kw = kw.contains(name);
  if (pos < args.size()) {
    if (in_kw)
      throw py::type_error(std::string(fn) + "() got multiple values for argument '" + name + "'");
    return args[pos];
  }
  return in_kw ? py::object(kw[name]) : fallback;
}

constexpr const char* kEinsumDoc =
    R"doc(einsum(spec, *operands, **options)
einsum(a, labels_a, b, labels_b, ..., [output], **options)

Einstein summation (C++ tenferro::einsum).

Spec form: einsum('ij,jk->ik', a, b), NumPy's grammar (letters a-zA-Z, '...' broadcasting,
implicit output without '->').

Sublist form (NumPy's): einsum(a, [0, 1], b, [1, 2], [0, 2]): operands interleaved with label
lists, then optionally the output list. Labels are ints >= 0 (no 52-letter limit) or any
hashable objects (strings, tuples); at most one Ellipsis (...) per list. Without an output list
the output is the '...' dimensions followed by the labels that appear exactly once, in
increasing order (sorted labels for strings).

Options (keyword only, every field of EinsumOptions):
  strategy: 'auto' (default), 'optimal', 'greedy', 'sequential', 'random_greedy', 'hyper'
  objective: 'flops' (default), 'size', 'combo';  combo_factor=64.0
  time_budget (seconds, 0: strategy default), trials (0: default), seed, threads (0: backend's)
  optimal_limit=8, memory_limit=0 (elements; 0: none)
  path: an explicit contraction order as SSA pairs [(i, j), ...]: inputs are 0..n-1 and step k's
    result is n+k (the form of EinsumPath.path)
  optimize: NumPy's spelling: True (greedy), False (sequential), a strategy name, or a linear
    path ['einsum_path', (0, 1), (0, 1)] / [(0, 1), (0, 1)] whose pairs are positions in the
    shrinking list of operands, each result appended at the end (np.einsum_path's output,
    opt_einsum's paths; EinsumPath.linear_path))doc";

constexpr const char* kEinsumPathDoc =
    R"doc(The contraction path einsum would take, as an EinsumPath (no tensor is computed).

einsum_path(spec, *operands, **options): operands are tensors, arrays or shapes.
einsum_path(a, labels_a, b, labels_b, ..., [output], **options): NumPy's sublist form (operands
  may be shapes).
einsum_path(inputs, output, size_dict, **options): the network form of opt_einsum/cotengra:
  inputs is a list of label lists (ints or any hashable labels, no Ellipsis), output a label list
  (None: the labels that appear once, increasing), size_dict a dict label -> size. Errors: empty
  inputs, a label missing from size_dict or a negative size (InvalidArgumentError, naming the
  label and operand). In the other forms a label whose sizes disagree is ShapeMismatchError.

Options as for einsum (strategy, objective, combo_factor, time_budget, trials, seed, threads,
optimal_limit, memory_limit, path, optimize). The result's .path (SSA pairs) goes back into
path=, its .linear_path into optimize= (and NumPy's optimize=['einsum_path', *linear_path]).
The search runs without the GIL.)doc";

constexpr const char* kPrepareDoc =
    R"doc(An EinsumPlan for operands of these shapes and dtypes (default f64); call it with them.

prepare_einsum(spec, shapes, dtypes=None, **options)
prepare_einsum(inputs, output, shapes_or_size_dict, dtypes=None, **options): label lists as in
  einsum_path's network form (output None: implicit); the third argument is one shape per operand
  or a dict label -> size. dtypes: one per operand, or one for all.
Options as for einsum. Planning runs without the GIL.)doc";

}  // namespace

void bind_einsum(py::module_& m) {
  m.def(
      "einsum",
      [](const py::args& args, const py::kwargs& kw) {
        if (args.size() == 0)
          throw py::type_error(
              "einsum() takes a spec string and operands, or operands interleaved with label "
              "lists: einsum('ij,jk->ik', a, b) or einsum(a, [0, 1], b, [1, 2], [0, 2])");
        const Options opt = kw.empty() ? Options{} : parse_options(kw, "einsum");
        auto run = [](const std::vector<Tensor>& ops, const EinsumOptions& o, auto&& f) {
          if (long_search(o, ops.size())) {
            py::gil_scoped_release release;
            return f(ops);
          }
          return call(f, ops);
        };
        if (py::isinstance<py::str>(args[0])) {
          const auto spec = args[0].cast<std::string>();
          std::vector<Tensor> ops;
          for (std::size_t k = 1; k < args.size(); ++k) ops.push_back(asarray(args[k]));
          const EinsumOptions o = opt.finish(ops.size(), "einsum");
          return run(ops, o, [&](const std::vector<Tensor>& v) {
            return einsum(spec, std::span<const Tensor>(v), o);
          });
        }
        Sublists s = sublists(args, "einsum");
        std::vector<Tensor> ops;
        std::vector<Dims> shapes;
        for (const py::object& h : s.operands) {
          ops.push_back(asarray(h));
          shapes.push_back(ops.back().shape());
        }
        const Labels l = bind_labels("einsum", s.terms, s.output, &shapes);
        for (std::size_t k = 0; k < ops.size(); ++k)
          for (std::int64_t axis : l.squeeze[k]) ops[k] = squeeze(ops[k], axis);
        const EinsumOptions o = opt.finish(ops.size(), "einsum");
        // Note [Sublists through the plan cache].
        if (const std::string spec = letter_spec(l); !spec.empty()) {
          try {
            return run(ops, o, [&](const std::vector<Tensor>& v) {
              return einsum(spec, std::span<const Tensor>(v), o);
            });
          } catch (const Error& e) {
            const ErrorKind k = e.kind();
            if (k != ErrorKind::InvalidArgument && k != ErrorKind::ShapeMismatch &&
                k != ErrorKind::DTypeMismatch)
              throw;
          }
        }
        return with_legend(l, [&] {
          return run(ops, o, [&](const std::vector<Tensor>& v) {
            return einsum(std::span<const Tensor>(v), l.inputs, l.output, o);
          });
        });
      },
      kEinsumDoc);

  py::class_<EinsumPath>(m, "EinsumPath",
                         "A contraction path and its cost estimate (C++ EinsumPath); str() prints "
                         "the summary and step table.")
      .def_readonly("subscripts", &EinsumPath::subscripts)
      .def_property_readonly("strategy",
                             [](const EinsumPath& p) { return std::string(to_string(p.strategy)); })
      .def_property_readonly(
          "objective", [](const EinsumPath& p) { return std::string(to_string(p.objective)); })
      .def_readonly("flops", &EinsumPath::flops)
      .def_readonly("naive_flops", &EinsumPath::naive_flops)
      .def_readonly("largest_intermediate", &EinsumPath::largest_intermediate)
      .def_readonly("total_write", &EinsumPath::total_write)
      .def_readonly("search_seconds", &EinsumPath::search_seconds)
      .def_readonly("trials", &EinsumPath::trials)
      .def_property_readonly(
          "steps",
          [](const EinsumPath& p) {
            py::list l;
            for (const EinsumStep& s : p.steps)
              l.append(py::make_tuple(s.lhs, s.rhs, s.subscripts,
                                      std::vector<std::int64_t>(s.shape.begin(), s.shape.end()),
                                      s.flops));
            return l;
          },
          "One (lhs, rhs, subscripts, shape, flops) tuple per pairwise contraction.")
      .def_property_readonly(
          "path",
          [](const EinsumPath& p) {
            std::vector<std::pair<int, int>> v;
            for (const EinsumStep& s : p.steps) v.emplace_back(s.lhs, s.rhs);
            return pairs(v);
          },
          "The steps as SSA pairs [(i, j), ...] (inputs 0..n-1, step k's result n+k): the form "
          "path= takes.")
      .def_property_readonly(
          "linear_path", [](const EinsumPath& p) { return pairs(ssa_to_linear(p)); },
          "The steps as a linear path (positions in the shrinking operand list, each result "
          "appended at the end): the form of optimize=, NumPy's and opt_einsum's paths.")
      .def("to_string", &EinsumPath::to_string)
      .def("__str__", &EinsumPath::to_string)
      .def("__repr__", &EinsumPath::to_string);

  m.def(
      "einsum_path",
      [](const py::args& args, const py::kwargs& kw) {
        constexpr const char* fn = "einsum_path";
        if (args.size() == 0)
          throw py::type_error(
              "einsum_path() takes a spec and operands, operands interleaved with label lists, "
              "or (inputs, output, size_dict)");
        const bool network =
            kw.contains("size_dict") || kw.contains("output") ||
            (args.size() == 3 && !py::isinstance<py::str>(args[0]) && is_mapping(args[2]));
        const Options opt = parse_options(kw, fn, {"size_dict", "output"});
        if (!network && (kw.contains("size_dict") || kw.contains("output")))
          throw py::type_error("einsum_path(): size_dict= and output= belong to the network form");
        if (py::isinstance<py::str>(args[0])) {
          if (network)
            throw py::type_error(
                "einsum_path(): the network form takes label lists, not a spec string");
          const auto spec = args[0].cast<std::string>();
          std::vector<Dims> shapes;
          for (std::size_t k = 1; k < args.size(); ++k) shapes.push_back(shape_of(args[k]));
          const EinsumOptions o = opt.finish(shapes.size(), fn);
          py::gil_scoped_release release;
          return einsum_path(spec, shapes, o);
        }
        if (network) {
          if (args.size() > 3)
            throw py::type_error("einsum_path(inputs, output, size_dict) takes 3 arguments");
          const py::object inputs = args[0];
          const py::object output = slot(args, 1, kw, "output", fn);
          const py::object sizes = slot(args, 2, kw, "size_dict", fn);
          if (sizes.is_none()) throw py::type_error("einsum_path(): size_dict is missing");
          auto [terms, out] = network_terms(inputs, output, fn);
          const std::vector<Dims> shapes = shapes_from_sizes(terms, sizes, fn);
          const Labels l = bind_labels(fn, terms, out, nullptr);
          const EinsumOptions o = opt.finish(shapes.size(), fn);
          return with_legend(l, [&] {
            py::gil_scoped_release release;
            return einsum_path(l.inputs, l.output, shapes, o);
          });
        }
        Sublists s = sublists(args, fn);
        std::vector<Dims> shapes;
        for (const py::object& h : s.operands) shapes.push_back(shape_of(h));
        const Labels l = bind_labels(fn, s.terms, s.output, &shapes);
        for (std::size_t k = 0; k < shapes.size(); ++k) drop_axes(shapes[k], l.squeeze[k]);
        const EinsumOptions o = opt.finish(shapes.size(), fn);
        return with_legend(l, [&] {
          py::gil_scoped_release release;
          return einsum_path(l.inputs, l.output, shapes, o);
        });
      },
      kEinsumPathDoc);

  py::class_<EinsumPlan>(m, "EinsumPlan", "A prepared einsum for fixed shapes and dtypes.")
      .def("__call__",
           [](const EinsumPlan& p, py::args operands) {
             std::vector<Tensor> ops;
             for (py::handle h : operands)
               ops.push_back(asarray(py::reinterpret_borrow<py::object>(h)));
             return call(
                 [&](const std::vector<Tensor>& v) { return p(std::span<const Tensor>(v)); }, ops);
           })
      .def_property_readonly("path", &EinsumPlan::path)
      .def_property_readonly("output_shape",
                             [](const EinsumPlan& p) {
                               return std::vector<std::int64_t>(p.output_shape().begin(),
                                                                p.output_shape().end());
                             })
      .def_property_readonly("output_dtype", [](const EinsumPlan& p) {
        return py::module_::import("tenferro._tenferro")
            .attr("dtype")(std::string(dtype_name(p.output_dtype())));
      });
  m.def(
      "prepare_einsum",
      [](const py::args& args, const py::kwargs& kw) {
        constexpr const char* fn = "prepare_einsum";
        const Options opt = parse_options(kw, fn, {"shapes", "dtypes", "size_dict", "output"});
        const bool spec_form = args.size() > 0 && py::isinstance<py::str>(args[0]);
        if (spec_form) {
          if (args.size() > 3 || kw.contains("size_dict") || kw.contains("output"))
            throw py::type_error("prepare_einsum(spec, shapes, dtypes=None, **options)");
          const auto spec = args[0].cast<std::string>();
          const py::object shapes_arg = slot(args, 1, kw, "shapes", fn);
          if (shapes_arg.is_none()) throw py::type_error("prepare_einsum(): shapes is missing");
          std::vector<Dims> shapes;
          for (py::handle s : shapes_arg)
            shapes.push_back(to_dims(py::reinterpret_borrow<py::object>(s)));
          const std::vector<DType> dt = dtypes_of(slot(args, 2, kw, "dtypes", fn), shapes.size());
          const EinsumOptions o = opt.finish(shapes.size(), fn);
          py::gil_scoped_release release;
          return prepare_einsum(spec, shapes, dt, o);
        }
        if (args.size() == 0 || args.size() > 4)
          throw py::type_error(
              "prepare_einsum() takes (spec, shapes, dtypes=None) or (inputs, output, shapes or "
              "size_dict, dtypes=None)");
        if (kw.contains("shapes") && kw.contains("size_dict"))
          throw py::type_error("prepare_einsum(): give shapes= or size_dict=, not both");
        const py::object output = slot(args, 1, kw, "output", fn);
        const py::object third =
            slot(args, 2, kw, kw.contains("size_dict") ? "size_dict" : "shapes", fn);
        if (third.is_none())
          throw py::type_error("prepare_einsum(): shapes or size_dict is missing");
        auto [terms, out] = network_terms(args[0], output, fn);
        std::vector<Dims> shapes;
        Labels l;
        if (is_mapping(third)) {
          shapes = shapes_from_sizes(terms, third, fn);
          l = bind_labels(fn, terms, out, nullptr);
        } else {
          for (py::handle s : third)
            shapes.push_back(to_dims(py::reinterpret_borrow<py::object>(s)));
          if (shapes.size() != terms.size())
            invalid(fn, "got " + std::to_string(terms.size()) + " label lists but " +
                            std::to_string(shapes.size()) + " shapes; expected one per operand");
          l = bind_labels(fn, terms, out, &shapes);
          if (l.needs_squeeze())
            invalid(fn,
                    "a size-1 '...' dimension broadcast against a larger one is not supported by "
                    "the label-list form of prepare_einsum (the plan would need other shapes); "
                    "use the spec string, or einsum");
        }
        const std::vector<DType> dt = dtypes_of(slot(args, 3, kw, "dtypes", fn), shapes.size());
        const EinsumOptions o = opt.finish(shapes.size(), fn);
        return with_legend(l, [&] {
          py::gil_scoped_release release;
          return prepare_einsum(l.inputs, l.output, shapes, dt, o);
        });
      },
      kPrepareDoc);
}

}  // namespace tenferro::python
