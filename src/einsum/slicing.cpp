// slice_plan and SlicePlan (tenferro/slicing.hpp): which labels to cut, and what it costs.
//
// Note [Slice search]: the path is found once, for the unsliced contraction, and every slice uses
// it (its pairs do not depend on sizes). A slice allocates the results of the path's pairwise
// steps and, for an operand summed over labels only it carries, that reduction (the lowering's
// single-operand sums; its views cost nothing). Cutting label l into k pieces divides the size of
// every such result that carries l by k, so a plan is a chunk count per label, costed by
// re-running the path's cost model (evaluate_pairs) on the sliced sizes. The search is greedy:
//  1. While some result exceeds the limit, take the cut (label l, from k to the next or a
//     larger divisor k' of its size) with the most *excess removed per factor of slices*:
//     sum over too-large results R carrying l of min(log(|R| / limit), log(k'/k)), divided by
//     log(k'/k). A label shared by several too-large results is worth more; a cut beyond what a
//     result needs earns nothing. Ties: fewer total flops, then the smaller factor, then the
//     label that comes first in the spec.
//  2. Undo what the limit no longer needs: each sliced label in turn gets the smallest chunk
//     count that keeps every result within the limit.
//  3. While there are fewer than min_slices slices, cut a label to its next divisor where the
//     total flops grow least.
// Only named labels are cut (letters, or the integer labels of the integer-label form; never '...'
// dimensions), output labels only with slice_output. Pieces are equal (chunk counts divide
// sizes), so one prepared einsum serves every slice. Both forms run slice_plan_impl on their
// parsed subscripts.
#include "tenferro/slicing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "einsum/path_search.hpp"
#include "einsum/program.hpp"
#include "einsum/sliced.hpp"
#include "tenferro/ops/structural.hpp"

namespace tenferro {
namespace detail {

void check_slice_options(const SliceOptions& o) {
  if (!(o.memory_limit >= 0))  // also NaN
    throw Error(ErrorKind::InvalidArgument,
                "slice_plan: SliceOptions::memory_limit is " + number(o.memory_limit) +
                    "; expected a number of elements >= 0 (0 for no limit), not NaN");
  if (o.min_slices < 1)
    throw Error(ErrorKind::InvalidArgument, "slice_plan: SliceOptions::min_slices is " +
                                                std::to_string(o.min_slices) + "; expected >= 1");
  if (o.einsum.memory_limit != 0)
    throw Error(ErrorKind::InvalidArgument,
                "slice_plan: SliceOptions::einsum.memory_limit is " +
                    number(o.einsum.memory_limit) +
                    "; expected 0 (the sliced contraction's limit is SliceOptions::memory_limit)");
}

namespace {

using einsum::Label;

// The divisors of n greater than 1, ascending (label sizes are small enough to try them all).
std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> low, high;
  if (n < 2) return low;
  for (std::int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      low.push_back(d);
      if (d != n / d) high.push_back(n / d);
    }
  low.insert(low.end(), high.rbegin(), high.rend());
  low.erase(low.begin());  // 1
  return low;
}

// The search state of Note [Slice search].
class Search {
 public:
  /// `summed[k]`: operand k is summed over labels only it carries before the path starts, which
  /// allocates its reduced form once per slice.
  Search(const einsum::Network& net, const einsum::PathProblem& problem,
         std::vector<std::pair<int, int>> pairs, std::vector<Label> candidates,
         std::vector<bool> summed)
      : net_(net),
        problem_(problem),
        pairs_(std::move(pairs)),
        candidates_(std::move(candidates)),
        summed_(std::move(summed)),
        chunks_(net.size.size(), 1) {}

  /// A tensor one slice allocates: an operand's reduction or a pairwise step's result.
  struct Result {
    einsum::LabelList labels;
    double size = 0;
    int operand = -1;  // the reduced operand, or -1
    int step = -1;     // the path step, or -1
  };
  struct Cost {
    double peak = 0;   // largest result of one slice
    double flops = 0;  // all slices together (pairwise steps)
    double slices = 1;
    std::vector<Result> results;
  };

  Cost cost(std::span<const std::int64_t> chunks) const {
    einsum::PathProblem p = problem_;
    Cost c;
    for (std::size_t l = 0; l < chunks.size(); ++l) {
      p.size[l] = problem_.size[l] / chunks[l];
      c.slices *= static_cast<double>(chunks[l]);
    }
    for (std::size_t k = 0; k < p.operands.size(); ++k) {
      if (!summed_[k]) continue;
      double size = 1;
      for (Label l : p.operands[k])
        size *= static_cast<double>(p.size[static_cast<std::size_t>(l)]);
      c.results.push_back({p.operands[k], size, static_cast<int>(k), -1});
    }
    const einsum::RawPath raw = einsum::evaluate_pairs(p, pairs_);
    for (std::size_t k = 0; k < raw.steps.size(); ++k)
      c.results.push_back({raw.steps[k].result, raw.steps[k].size, -1, static_cast<int>(k)});
    for (const Result& r : c.results) c.peak = std::max(c.peak, r.size);
    c.flops = raw.flops * c.slices;
    return c;
  }
  Cost cost() const { return cost(chunks_); }

  // Step 1 of Note [Slice search]; returns false when no cut reduces a too-large result. The
  // efficiencies are cheap and decide; only the cuts within rounding of the best one are costed
  // (a re-evaluation of the path each) to break the tie.
  bool cut_for_memory(double limit) {
    const Cost now = cost();
    struct Cut {
      double efficiency = 0, factor = 0;
      Label label = -1;
      std::int64_t chunks = 0;
    };
    std::vector<Cut> cuts;
    double top = 0;
    for (Label l : candidates_) {
      const std::int64_t k = chunks_[static_cast<std::size_t>(l)];
      for (std::int64_t k2 : divisors(net_.size[static_cast<std::size_t>(l)])) {
        if (k2 <= k) continue;
        const double delta = std::log(static_cast<double>(k2) / static_cast<double>(k));
        double removed = 0;
        for (const Result& r : now.results)
          if (r.size > limit && std::find(r.labels.begin(), r.labels.end(), l) != r.labels.end())
            removed += std::min(std::log(r.size / limit), delta);
        if (removed <= 0) break;  // l is in no too-large result: no divisor helps
        cuts.push_back({removed / delta, static_cast<double>(k2) / static_cast<double>(k), l, k2});
        top = std::max(top, removed / delta);
      }
    }
    const Cut* best = nullptr;
    double best_flops = 0;
    for (const Cut& c : cuts) {
      if (c.efficiency < top * (1 - 1e-12)) continue;
      std::vector<std::int64_t> trial = chunks_;
      trial[static_cast<std::size_t>(c.label)] = c.chunks;
      const double flops = cost(trial).flops;
      if (!best || flops < best_flops || (flops == best_flops && c.factor < best->factor)) {
        best = &c;
        best_flops = flops;
      }
    }
    if (!best) return false;
    chunks_[static_cast<std::size_t>(best->label)] = best->chunks;
    return true;
  }

  // Step 2: the smallest chunk count per sliced label that keeps the limit.
  void undo_unneeded(double limit) {
    for (Label l : candidates_) {
      const std::size_t li = static_cast<std::size_t>(l);
      if (chunks_[li] == 1) continue;
      const std::int64_t was = chunks_[li];
      std::vector<std::int64_t> options{1};
      for (std::int64_t d : divisors(net_.size[li]))
        if (d < was) options.push_back(d);
      for (std::int64_t k : options) {
        chunks_[li] = k;
        if (cost().peak <= limit) break;
        chunks_[li] = was;
      }
    }
  }

  // Step 3: one more cut where the total flops grow least; false when nothing can be cut.
  bool cut_for_count() {
    Label best_label = -1;
    std::int64_t best_chunks = 0;
    double best_flops = 0, best_factor = 0;
    for (Label l : candidates_) {
      const std::size_t li = static_cast<std::size_t>(l);
      for (std::int64_t k2 : divisors(net_.size[li])) {
        if (k2 <= chunks_[li]) continue;
        std::vector<std::int64_t> trial = chunks_;
        trial[li] = k2;
        const double flops = cost(trial).flops;
        const double factor = static_cast<double>(k2) / static_cast<double>(chunks_[li]);
        if (best_label < 0 || flops < best_flops || (flops == best_flops && factor < best_factor)) {
          best_label = l;
          best_chunks = k2;
          best_flops = flops;
          best_factor = factor;
        }
        break;  // the next divisor only
      }
    }
    if (best_label < 0) return false;
    chunks_[static_cast<std::size_t>(best_label)] = best_chunks;
    return true;
  }

  const std::vector<std::int64_t>& chunks() const { return chunks_; }
  void set_chunks(std::vector<std::int64_t> chunks) { chunks_ = std::move(chunks); }

 private:
  const einsum::Network& net_;
  const einsum::PathProblem& problem_;
  std::vector<std::pair<int, int>> pairs_;
  std::vector<Label> candidates_;  // in order of first appearance in the spec
  std::vector<bool> summed_;
  std::vector<std::int64_t> chunks_;
};

bool in_list(const einsum::LabelList& ls, Label l) {
  return std::find(ls.begin(), ls.end(), l) != ls.end();
}

// Letter labels (not '...' dimensions) in order of first appearance in the operands' terms;
// letters take the dense ids below the ellipsis ids (Note [Einsum labels]).
std::vector<Label> letters_in_spec_order(const einsum::Subscripts& subs) {
  std::vector<std::int64_t> raws;
  for (const einsum::Term& t : subs.inputs)
    for (std::int64_t r : t.labels)
      if (r != einsum::kEllipsis && std::find(raws.begin(), raws.end(), r) == raws.end())
        raws.push_back(r);
  std::vector<std::int64_t> sorted = raws;
  std::sort(sorted.begin(), sorted.end());
  std::vector<Label> out;
  for (std::int64_t r : raws)
    out.push_back(
        static_cast<Label>(std::lower_bound(sorted.begin(), sorted.end(), r) - sorted.begin()));
  return out;
}

// The named labels' raw ids (letter ids or integer labels), ascending: dense id l is raws[l]
// (Note [Einsum labels]).
std::vector<std::int64_t> sorted_raw_labels(const einsum::Subscripts& subs) {
  std::vector<std::int64_t> raws;
  for (const einsum::Term& t : subs.inputs)
    for (std::int64_t r : t.labels)
      if (r != einsum::kEllipsis) raws.push_back(r);
  std::sort(raws.begin(), raws.end());
  raws.erase(std::unique(raws.begin(), raws.end()), raws.end());
  return raws;
}

// A result's labels for messages: letters as in the spec ("ac"), integer labels as written.
std::string labels_text(const einsum::Subscripts& subs, const einsum::Network& net,
                        const std::vector<std::int64_t>& raws, const einsum::LabelList& labels) {
  if (!subs.integer_form) return einsum::format_term(net, labels);
  std::string s = "labels [";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto l = static_cast<std::size_t>(labels[i]);
    s += (i ? ", " : "") + (l < raws.size() ? std::to_string(raws[l]) : net.names[l]);
  }
  return s + "]";
}

[[noreturn]] void limit_error(const Search& search, const einsum::Subscripts& subs,
                              const einsum::Network& net, const std::vector<std::int64_t>& raws,
                              double limit, bool slice_output) {
  const Search::Cost c = search.cost();
  const Search::Result* worst = &c.results.front();
  for (const Search::Result& r : c.results)
    if (r.size > worst->size) worst = &r;
  const std::string what = worst->step >= 0
                               ? "step " + std::to_string(worst->step) + "'s result"
                               : "operand " + std::to_string(worst->operand) + "'s reduction";
  throw Error(ErrorKind::InvalidArgument,
              "slice_plan: no slicing brings every result within memory_limit = " + number(limit) +
                  " elements: " + what + " (" + labels_text(subs, net, raws, worst->labels) +
                  ") keeps " + number(worst->size) +
                  " elements with every label it can cut cut into single elements (" +
                  (slice_output ? "'...' dimensions are never cut"
                                : "output labels are not cut: slice_output is false; '...' "
                                  "dimensions are never cut") +
                  "); expected a larger limit");
}

// Whether each operand is summed over labels only it carries (Note [Einsum lowering], step 3),
// which allocates its reduced form: it keeps fewer distinct labels than its axes name, not
// counting a diagonal's repeats or '...' dimensions of size 1 that broadcast (views).
std::vector<bool> summed_operands(const einsum::Network& net, const einsum::PathProblem& problem,
                                  const std::vector<Dims>& shapes) {
  std::vector<bool> summed;
  for (std::size_t k = 0; k < net.operands.size(); ++k) {
    einsum::LabelList kept;
    for (std::size_t a = 0; a < net.operands[k].size(); ++a) {
      const Label l = net.operands[k][a];
      const bool broadcast = shapes[k][a] == 1 && net.size[static_cast<std::size_t>(l)] != 1;
      if (!broadcast && !in_list(kept, l)) kept.push_back(l);
    }
    summed.push_back(kept.size() > problem.operands[k].size());
  }
  return summed;
}

}  // namespace

namespace {
// The time budget of random_greedy and hyper (EinsumOptions::time_budget or their defaults), and
// how slice_plan shares it: the sliced hyper search (Note [Sliced hyper search]), then the
// interleaved re-optimisation (Note [Sliced search]).
double search_budget(const EinsumOptions& o) {
  return o.time_budget > 0 ? o.time_budget : o.strategy == EinsumStrategy::hyper ? 10.0 : 1.0;
}
constexpr double kInterleavedShare = 0.25;

// A tree and the chunk counts cut on it (empty: the tree is cut by Search alone).
struct Interleaved {
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::int64_t> chunks;
};
// Note [Sliced search] from `pairs` under each of its three rules, reconfiguring `leaves`-leaf
// subtrees until `deadline` (then cutting on without reconfiguration).
std::vector<Interleaved> interleaved_cuts(const EinsumProgram& unsliced,
                                          const std::vector<Label>& candidates, double limit,
                                          const std::vector<std::pair<int, int>>& pairs, int leaves,
                                          einsum::search::Clock::time_point deadline) {
  namespace search = einsum::search;
  const search::Net net(unsliced.problem);
  using Pick = search::SliceRule::Pick;
  const search::SliceRule rules[] = {
      {Pick::fewest_flops, false}, {Pick::excess_per_flop, false}, {Pick::fewest_flops, true}};
  std::vector<Interleaved> out;
  for (const search::SliceRule& rule : rules) {
    search::Tree tree = search::tree_from_pairs(net, pairs);
    std::vector<std::int64_t> chunks;
    if (search::slice_and_reconfigure(net, tree, candidates, limit, leaves, rule, deadline, chunks))
      out.push_back({search::pairs_from_tree(tree), std::move(chunks)});
  }
  return out;
}
}  // namespace

SlicePlan slice_plan_impl(const einsum::Subscripts& subs, const std::vector<Dims>& shapes,
                          const SliceOptions& options) {
  const einsum::Network net = einsum::bind_shapes(subs, shapes);
  const std::vector<DType> dtypes(shapes.size(), DType::f64);
  const double limit = options.memory_limit > 0 && std::isfinite(options.memory_limit)
                           ? options.memory_limit
                           : std::numeric_limits<double>::infinity();
  const EinsumStrategy strategy = options.einsum.strategy;
  // random_greedy and hyper under a limit search with the sliced cost (Note [Sliced hyper
  // search]); their lowering runs greedy, for the problem and greedy's path (tried below too).
  const bool sliced_search =
      std::isfinite(limit) && options.einsum.path.empty() &&
      (strategy == EinsumStrategy::random_greedy || strategy == EinsumStrategy::hyper) &&
      shapes.size() >= 3;
  EinsumOptions lowering = options.einsum;
  if (sliced_search) lowering.strategy = EinsumStrategy::greedy;
  const EinsumProgram unsliced = lower_einsum(net, shapes, dtypes, lowering);

  std::vector<std::pair<int, int>> pairs;
  for (const EinsumStep& s : unsliced.path.steps) pairs.emplace_back(s.lhs, s.rhs);
  const std::vector<Label> letters = letters_in_spec_order(subs);
  std::vector<Label> candidates;
  for (Label l : letters)
    if (net.size[static_cast<std::size_t>(l)] > 1 &&
        (options.slice_output || !in_list(net.output, l)))
      candidates.push_back(l);

  // The tries, each finished by the greedy pass of Note [Slice search]; the fewest total flops
  // win (then the fewer slices, then the earlier):
  //  - random_greedy and hyper: the sliced search's tree and cuts (three quarters of the time
  //    budget), then cuts interleaved with 8-leaf reconfiguration from its tree and with 6-leaf
  //    reconfiguration from greedy's, then greedy's tree as it is (the greedy strategy's plan's
  //    tries, so never worse than it when the last quarter of the budget suffices; the sliced
  //    search's own tree was annealed for its cuts);
  //  - automatic and greedy above optimal_limit operands: cuts interleaved with 6-leaf
  //    reconfiguration from the path (no clock: deterministic), then the path as it is;
  //  - optimal, sequential, explicit paths: the path as it is.
  const std::vector<bool> summed = summed_operands(net, unsliced.problem, shapes);
  const int n = static_cast<int>(shapes.size());
  const bool interleave =
      std::isfinite(limit) && n >= 3 && options.einsum.path.empty() &&
      (sliced_search || strategy == EinsumStrategy::greedy ||
       (strategy == EinsumStrategy::automatic && n > options.einsum.optimal_limit));
  std::vector<Interleaved> tries;
  if (sliced_search) {
    EinsumOptions o = options.einsum;
    o.time_budget = (1 - kInterleavedShare) * search_budget(options.einsum);
    einsum::search::SlicedTree found =
        einsum::search::hyper_search_sliced(unsliced.problem, o, strategy, limit, candidates);
    const auto deadline =
        einsum::search::Clock::now() +
        std::chrono::duration_cast<einsum::search::Clock::duration>(
            std::chrono::duration<double>(kInterleavedShare * search_budget(options.einsum)));
    if (!found.pairs.empty()) {
      tries.push_back({found.pairs, std::move(found.chunks)});
      for (Interleaved& t : interleaved_cuts(unsliced, candidates, limit, found.pairs, 8, deadline))
        tries.push_back(std::move(t));
    }
    for (Interleaved& t : interleaved_cuts(unsliced, candidates, limit, pairs, 6, deadline))
      tries.push_back(std::move(t));
  } else if (interleave) {
    tries = interleaved_cuts(unsliced, candidates, limit, pairs, 6,
                             einsum::search::Clock::time_point::max());
  }
  tries.push_back({pairs, {}});
  std::optional<Search> best;
  double unsliced_peak = 0, unsliced_flops = 0;
  for (Interleaved& t : tries) {
    Search search(net, unsliced.problem, t.pairs, candidates, summed);
    const Search::Cost whole = search.cost();  // along this try's pairs
    if (!t.chunks.empty()) search.set_chunks(t.chunks);
    bool fits = true;
    while (fits && search.cost().peak > limit) fits = search.cut_for_memory(limit);
    if (!fits) {
      if (t.chunks.empty() && !best)  // the fixed path is last: nothing met the limit
        limit_error(search, subs, net, sorted_raw_labels(subs), limit, options.slice_output);
      continue;
    }
    search.undo_unneeded(limit);
    while (search.cost().slices < static_cast<double>(options.min_slices) &&
           search.cut_for_count()) {
    }
    const Search::Cost c = search.cost();
    if (!best || c.flops < best->cost().flops ||
        (c.flops == best->cost().flops && c.slices < best->cost().slices)) {
      best.emplace(std::move(search));
      pairs = t.pairs;
      unsliced_peak = whole.peak;
      unsliced_flops = whole.flops;
    }
  }
  Search& search = *best;
  const Search::Cost final_cost = search.cost();
  if (final_cost.slices > static_cast<double>(std::int64_t{1} << 62))
    throw Error(ErrorKind::InvalidArgument, "slice_plan: " + number(final_cost.slices) +
                                                " slices do not fit in int64; expected fewer "
                                                "(a smaller min_slices or a larger memory_limit)");

  SlicePlan plan;
  plan.subscripts = unsliced.path.subscripts;
  plan.shapes = shapes;
  plan.output_shape = unsliced.output_shape;
  plan.slice_shapes = shapes;
  plan.slice_output_shape = unsliced.output_shape;
  const std::vector<std::int64_t>& chunks = search.chunks();
  const std::vector<std::int64_t> raws = sorted_raw_labels(subs);
  for (Label l : letters) {
    const std::size_t li = static_cast<std::size_t>(l);
    if (chunks[li] == 1) continue;
    SlicedLabel s;
    if (subs.integer_form) {
      s.id = raws[li];
      s.name = std::to_string(s.id);
    } else {
      s.label = net.names[li][0];
      s.id = static_cast<unsigned char>(s.label);
      s.name = std::string(1, s.label);
    }
    s.size = net.size[li];
    s.chunks = chunks[li];
    for (std::size_t k = 0; k < net.operands.size(); ++k) {
      std::vector<std::int64_t> axes;
      for (std::size_t a = 0; a < net.operands[k].size(); ++a)
        if (net.operands[k][a] == l) {
          axes.push_back(static_cast<std::int64_t>(a));
          plan.slice_shapes[k][a] = s.extent();
        }
      s.axes.push_back(std::move(axes));
    }
    for (std::size_t a = 0; a < net.output.size(); ++a)
      if (net.output[a] == l) {
        s.output_axis = static_cast<std::int64_t>(a);
        plan.slice_output_shape[a] = s.extent();
      }
    plan.slices *= s.chunks;
    plan.sliced.push_back(std::move(s));
  }
  EinsumOptions given = options.einsum;
  given.path = pairs;
  plan.path =
      lower_einsum(einsum::bind_shapes(subs, plan.slice_shapes), plan.slice_shapes, dtypes, given)
          .path;
  plan.path.strategy = EinsumStrategy::given;  // also for one operand, which has no pairs
  plan.path.search_seconds = 0;  // nothing was searched; keeps equal plans (and prints) equal
  plan.pairs = std::move(pairs);
  plan.memory_limit = options.memory_limit;
  plan.peak = final_cost.peak;
  plan.flops_per_slice = plan.path.flops;
  plan.total_flops = final_cost.flops;
  plan.unsliced_flops = unsliced_flops;
  plan.unsliced_peak = unsliced_peak;
  return plan;
}

}  // namespace detail

SlicePlan slice_plan(std::string_view spec, const std::vector<Dims>& shapes,
                     const SliceOptions& options) {
  detail::check_slice_options(options);
  return detail::slice_plan_impl(detail::einsum::parse_subscripts(spec), shapes, options);
}

SlicePlan slice_plan(const std::vector<EinsumLabels>& labels, const EinsumLabels& output,
                     const std::vector<Dims>& shapes, const SliceOptions& options) {
  detail::check_slice_options(options);
  return detail::slice_plan_impl(detail::einsum::integer_subscripts(labels, &output), shapes,
                                 options);
}

double SlicePlan::overhead() const noexcept {
  return unsliced_flops > 0 ? total_flops / unsliced_flops : 1.0;
}

std::vector<std::int64_t> SlicePlan::offsets(std::int64_t k) const {
  if (k < 0 || k >= slices)
    throw Error(ErrorKind::InvalidArgument, "slice plan: slice index " + std::to_string(k) +
                                                " is out of range; expected 0 <= k < " +
                                                std::to_string(slices) + " (plan: " + subscripts +
                                                ")");
  std::vector<std::int64_t> out(sliced.size());
  for (std::size_t i = sliced.size(); i-- > 0;) {
    out[i] = (k % sliced[i].chunks) * sliced[i].extent();
    k /= sliced[i].chunks;
  }
  return out;
}

std::vector<Tensor> SlicePlan::slice_operands(std::span<const Tensor> operands,
                                              std::int64_t k) const {
  if (operands.size() != shapes.size())
    throw Error(ErrorKind::InvalidArgument,
                "slice plan: got " + std::to_string(operands.size()) + " operands; expected " +
                    std::to_string(shapes.size()) + " (plan: " + subscripts + ")");
  for (std::size_t j = 0; j < operands.size(); ++j)
    if (!operands[j].defined() || !(operands[j].shape() == shapes[j]))
      throw Error(ErrorKind::ShapeMismatch,
                  "slice plan: operand " + std::to_string(j) + " has shape " +
                      (operands[j].defined() ? dims_to_string(operands[j].shape())
                                             : std::string("(undefined)")) +
                      "; expected " + dims_to_string(shapes[j]) + " (plan: " + subscripts + ")");
  const std::vector<std::int64_t> start = offsets(k);
  std::vector<Tensor> out(operands.begin(), operands.end());
  for (std::size_t i = 0; i < sliced.size(); ++i)
    for (std::size_t j = 0; j < out.size(); ++j)
      for (std::int64_t axis : sliced[i].axes[j])
        out[j] = slice(out[j], axis, start[i], start[i] + sliced[i].extent());
  return out;
}

Tensor SlicePlan::output_block(const Tensor& output, std::int64_t k) const {
  if (!output.defined() || !(output.shape() == output_shape))
    throw Error(
        ErrorKind::ShapeMismatch,
        "slice plan: the output has shape " +
            (output.defined() ? dims_to_string(output.shape()) : std::string("(undefined)")) +
            "; expected " + dims_to_string(output_shape) + " (plan: " + subscripts + ")");
  const std::vector<std::int64_t> start = offsets(k);
  Tensor out = output;
  for (std::size_t i = 0; i < sliced.size(); ++i)
    if (sliced[i].output_axis >= 0)
      out = slice(out, sliced[i].output_axis, start[i], start[i] + sliced[i].extent());
  return out;
}

namespace {
// The name that `subscripts` ("ab,bc->ac", or with "{k}" names past the letters) gives the label
// that operand `operand` carries on axis `axis` ("" when there is none).
std::string name_in_subscripts(const std::string& subscripts, std::size_t operand,
                               std::int64_t axis) {
  std::size_t term = 0, pos = 0;
  std::int64_t a = 0;
  while (pos < subscripts.size() && subscripts[pos] != '-') {
    const char c = subscripts[pos];
    if (c == ',') {
      ++term;
      a = 0;
      ++pos;
      continue;
    }
    const std::size_t end = c == '{' ? subscripts.find('}', pos) : pos;
    if (end == std::string::npos) break;
    if (term == operand && a == axis) return subscripts.substr(pos, end - pos + 1);
    ++a;
    pos = end + 1;
  }
  return "";
}
}  // namespace

std::string SlicePlan::to_string() const {
  using detail::number;
  std::string s = "slice plan: " + subscripts + "\n  sliced:";
  if (sliced.empty()) s += " nothing";
  for (std::size_t i = 0; i < sliced.size(); ++i) {
    // An integer label also shows the generated name that the subscripts print for it.
    std::string alias;
    if (sliced[i].label == 0)
      for (std::size_t j = 0; j < sliced[i].axes.size() && alias.empty(); ++j)
        if (!sliced[i].axes[j].empty())
          alias = name_in_subscripts(subscripts, j, sliced[i].axes[j][0]);
    s += (i ? ", " : " ") + sliced[i].name + (alias.empty() ? "" : " as " + alias) + " (" +
         std::to_string(sliced[i].size) + " = " + std::to_string(sliced[i].chunks) + " x " +
         std::to_string(sliced[i].extent()) + (sliced[i].output_axis >= 0 ? ", output" : "") + ")";
  }
  s += "\n  slices: " + std::to_string(slices) + "\n";
  s += "  peak per slice: " + number(peak) + " elements (limit " +
       (memory_limit > 0 ? number(memory_limit) : std::string("none")) + ", unsliced " +
       number(unsliced_peak) + ")\n";
  s += "  flops: " + number(flops_per_slice) + " per slice, " + number(total_flops) +
       " in all (unsliced " + number(unsliced_flops) + ", overhead " + number(overhead()) + "x)\n";
  std::string p = path.to_string();
  for (std::size_t pos = 0; pos < p.size();) {
    const std::size_t end = p.find('\n', pos);
    s += "  " + p.substr(pos, end == std::string::npos ? std::string::npos : end - pos + 1);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return s;
}

}  // namespace tenferro
