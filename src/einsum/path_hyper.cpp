// random_greedy and hyper: many sampled trials, spread over the backend's threads.
//
// Note [Hyper search]: trial k draws its parameters from mix_seed(seed, k) alone, so a trial's
// tree does not depend on which thread ran it or when; the best trials by the objective win, ties
// to the lower k, so equal seeds and trial counts give equal paths at every thread count. The
// deterministic greedy candidates (the greedy strategy's) are the baseline, so neither strategy is
// ever worse than greedy. Trials:
//  - random_greedy: the greedy queue (Note [Greedy queue]) with the log_ratio key, costmod ~
//    U(1, 2) and temperature ~ log-uniform(0.005, 0.3) bits of Gumbel noise. (Measured on
//    circuit, lattice and random-regular networks: costmod below 1 or temperatures near 1 bit
//    only produce trees 10^3..10^10 worse; see docs/einsum.md.)
//  - hyper: two of three trials as random_greedy, the third a recursive bisection (Note
//    [Partitioned trees]) with imbalance ~ U(0.01, 0.6) and cutoff ~ U{2..12}; every trial's tree
//    is reconfigured over 6-leaf subtrees (Note [Subtree reconfiguration]) before it is judged
//    (a raw tree's cost does not predict its reconfigured cost: measured on Sycamore, 10 s of
//    hyper trials alone reach 10^18.26 multiply-adds with it, 10^18.49 judging raw trees). Trials
//    stop at half the time budget when their number is not fixed; then the 4 best trees are
//    reconfigured over 8-leaf subtrees, the best of them over 10- and 12-leaf subtrees and by up to
//    8 rounds of annealing (Note [Tree annealing], TreeSA's local energy), until the budget ends.
// Workers pull trial numbers from one counter and check the clock before each trial and between
// reconfiguration steps, so the search stops itself within about one trial of the budget.
//
// Note [Sliced hyper search]: slice_plan with random_greedy or hyper under a memory limit runs
// this driver judging every tree by its cost after slicing (Note [Sliced trial cost]): the tree
// that is best unsliced is among the worst sliced (Sycamore at 2^30: 10^18.3 multiply-adds
// become 10^29.9). hyper's trials are also cut and reconfigured together (Note [Sliced search],
// cut by excess removed per flop, 6-leaf subtrees, free) before they are judged; they stop at a
// quarter of the budget, and the rest goes to up to 16 rounds of sliced annealing (Note [Sliced
// annealing]; 4000 temperatures, inverse temperature 0.5 -> 15 per bit, TreeSA's local energy)
// from the 4 best trees in turn, spread over the workers, each finished by 8-leaf reconfiguration
// on its sliced sizes capped at the limit. Measured on Sycamore at 2^30 with 60 s on 2 cores
// (docs/einsum.md): judging and cutting the trials alone reach 10^21-22; the annealing rounds
// 10^18.7 (with the global energy of the unsliced refinement, 10^21.6: it leaves the small
// subtrees to drift).
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <limits>
#include <mutex>
#include <random>

#include "cpu/admission.hpp"
#include "einsum/path_search.hpp"
#include "tenferro/eager.hpp"

namespace tenferro::detail::einsum::search {
namespace {

struct Found {
  Score score;
  std::uint64_t trial = 0;
  Pairs pairs;
  std::vector<std::int64_t> chunks;  // sliced search only
};

bool fits(const Tree& t, double limit) {
  if (limit <= 0) return true;
  for (std::size_t v = static_cast<std::size_t>(t.n_leaves()); v < t.left.size(); ++v)
    if (static_cast<int>(v) != t.root() && t.size[v] > limit) return false;
  return true;
}

class Driver {
 public:
  Driver(const PathProblem& p, const EinsumOptions& o, EinsumStrategy strategy)
      : net_(p), strategy_(strategy) {
    obj_.kind = o.objective;
    obj_.combo_factor = o.combo_factor;
    obj_.limit = o.memory_limit > 0 && std::isfinite(o.memory_limit) ? o.memory_limit : 0;
    const double budget =
        o.time_budget > 0 ? o.time_budget : (strategy == EinsumStrategy::hyper ? 10.0 : 1.0);
    start_ = Clock::now();
    deadline_ =
        start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget));
    fixed_trials_ = o.trials > 0;
    trials_ = fixed_trials_ ? static_cast<std::uint64_t>(o.trials)
                            : (strategy == EinsumStrategy::hyper ? UINT64_MAX : 128);
    trial_deadline_ = fixed_trials_ || strategy != EinsumStrategy::hyper
                          ? deadline_
                          : start_ + (deadline_ - start_) / 2;
    seed_ = o.seed;
    threads_ = o.threads;
  }

  /// Judges trees by their sliced cost under `limit` (Note [Sliced trial cost]).
  void slice_to(double limit, std::span<const Label> candidates) {
    slice_limit_ = limit;
    // Sliced annealing gains more than further trials (Note [Sliced hyper search]).
    if (trial_deadline_ != deadline_)
      trial_deadline_ = start_ + std::chrono::duration_cast<Clock::duration>((deadline_ - start_) *
                                                                             kSlicedTrialShare);
    candidates_.assign(candidates.begin(), candidates.end());
  }

  // Keeps the kTop best trials, ordered by the objective, ties to the lower trial.
  void consider(Found f) {
    std::lock_guard<std::mutex> lock(mu_);
    auto before = [&](const Found& a, const Found& b) {
      return obj_.better(a.score, b.score) || (!obj_.better(b.score, a.score) && a.trial < b.trial);
    };
    top_.insert(std::upper_bound(top_.begin(), top_.end(), f, before), std::move(f));
    if (top_.size() > kTop) top_.pop_back();
  }

  void baseline(const Pairs& pairs) {
    if (pairs.empty() && net_.n > 1) return;
    const Tree t = tree_from_pairs(net_, pairs);
    if (!fits(t, obj_.limit)) return;
    std::vector<std::int64_t> chunks;
    const Score s = judge(t, chunks);
    if (std::isfinite(s.flops)) consider({s, 0, pairs, std::move(chunks)});
  }

  void run_trials() {
    run_workers([&] {
      for (;;) {
        const std::uint64_t k = next_.fetch_add(1);
        if (k >= trials_ || Clock::now() > trial_deadline_) return;
        run_trial(k);
        done_.fetch_add(1);
      }
    });
  }

  // Runs `work` on up to `threads` workers of the current backend (Note [Hyper search]).
  template <class Work>
  void run_workers(Work&& work) {
    const int want = threads_ > 0 ? threads_ : 0;
    bool admitted = false;
    if (want != 1) {
      try {
        run_operation(current_backend(), [&](ExecContext& ctx) {
          admitted = true;
          const int workers = std::min(want > 0 ? want : ctx.threads(), ctx.threads());
          if (workers <= 1 || ctx.kind() != BackendKind::native) return work();
          tbb::this_task_arena::isolate(
              [&] { tbb::parallel_for(0, workers, [&](int) { work(); }); });
        });
      } catch (const Error&) {
        if (admitted) throw;  // the admission itself failed: search on this thread instead
      }
    }
    if (!admitted) work();
  }

  // hyper: the kTop best trials reconfigured over 8-leaf subtrees, the best of them over 10 and
  // 12 leaves.
  void refine() {
    if (strategy_ != EinsumStrategy::hyper || top_.empty()) return;
    if (slice_limit_ > 0) return refine_sliced();
    std::vector<Found> refined;
    for (const Found& f : top_) {
      Tree t = tree_from_pairs(net_, f.pairs);
      reconfigure(net_, t, 8, obj_, deadline_);
      refined.push_back(fits(t, obj_.limit) && obj_.better(t.score(), f.score)
                            ? Found{t.score(), f.trial, pairs_from_tree(t), {}}
                            : f);
    }
    top_.clear();
    for (Found& f : refined) consider(std::move(f));
    Tree t = tree_from_pairs(net_, top_.front().pairs);
    for (int leaves : {10, 12}) reconfigure(net_, t, leaves, obj_, deadline_);
    keep(t);
    // Annealing rounds (TreeSA's local energy), each followed by a reconfiguration descent.
    for (int round = 0; round < kAnnealRounds && Clock::now() < deadline_; ++round) {
      Tree s = tree_from_pairs(net_, top_.front().pairs);
      AnnealParams ap;
      ap.size_target = obj_.limit;
      ap.temperatures = 2000;
      ap.beta0 = 0.5;
      ap.beta1 = 15;
      ap.local = true;
      ap.seed = mix_seed(seed_, UINT64_MAX - static_cast<std::uint64_t>(round));
      anneal(net_, s, ap, deadline_);
      reconfigure(net_, s, 8, obj_, deadline_);
      keep(s);
    }
  }

  // refine() for the sliced search (Note [Sliced hyper search]): rounds of sliced annealing
  // from the best trees, spread over the workers (round r from the (r mod kTop)-th tree), each
  // finished by 8-leaf reconfiguration on its sliced sizes capped at the limit; the best kept.
  void refine_sliced() {
    const std::vector<Found> start = top_;
    Objective capped = obj_;
    capped.limit = slice_limit_;
    std::atomic<std::uint64_t> next{0};
    run_workers([&] {
      for (;;) {
        const std::uint64_t r = next.fetch_add(1);
        if (r >= kSlicedRounds || Clock::now() > deadline_) return;
        const Found& from = start[r % start.size()];
        Tree t = tree_from_pairs(net_, from.pairs);
        std::vector<std::int64_t> chunks;
        AnnealParams ap;
        ap.temperatures = kSlicedTemperatures;
        ap.beta0 = 0.5;
        ap.beta1 = 15;
        ap.local = true;
        ap.seed = mix_seed(seed_, UINT64_MAX - r);
        anneal_sliced(net_, t, slice_limit_, candidates_, ap, deadline_, chunks);
        reconfigure(sliced_net(net_, chunks), t, 8, capped, deadline_);
        const Score s = sliced_score(t, chunks);
        // Rounds rank after every trial, by round: ties do not depend on the thread.
        if (std::isfinite(s.flops)) consider({s, kRoundIds + r, pairs_from_tree(t), chunks});
      }
    });
  }

  // A tree's score: its own, or in the sliced search its cost after slice_fixed.
  Score judge(const Tree& t, std::vector<std::int64_t>& chunks) const {
    if (slice_limit_ <= 0) return t.score();
    Score s;
    if (!std::isfinite(slice_fixed(net_, t, slice_limit_, candidates_, chunks, &s)))
      s.flops = std::numeric_limits<double>::infinity();
    return s;
  }

  // The cost over all slices of a tree scored on the sliced network of `chunks` (infinite when
  // a result exceeds the limit).
  Score sliced_score(const Tree& t, std::span<const std::int64_t> chunks) const {
    double slices = 1;
    for (std::int64_t c : chunks) slices *= static_cast<double>(c);
    Score s = t.score();
    if (s.largest > slice_limit_) s.flops = std::numeric_limits<double>::infinity();
    s.flops *= slices;
    s.write *= slices;
    return s;
  }

  void keep(const Tree& t) {
    if (fits(t, obj_.limit) && obj_.better(t.score(), top_.front().score))
      top_.front() = Found{t.score(), top_.front().trial, pairs_from_tree(t), {}};
  }

  const Found* best() const { return top_.empty() ? nullptr : &top_.front(); }
  int trials_run() const { return static_cast<int>(std::min<std::uint64_t>(done_, INT_MAX)); }
  const Objective& objective() const { return obj_; }
  const Net& net() const { return net_; }

 private:
  void run_trial(std::uint64_t k) {
    std::mt19937_64 rng(mix_seed(seed_, k));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Tree t;
    if (strategy_ == EinsumStrategy::hyper && k % 3 == 2) {
      PartitionParams pp;
      pp.imbalance = 0.01 + 0.59 * unit(rng);
      pp.cutoff = 2 + static_cast<int>(unit(rng) * 11);
      pp.seed = rng();
      if (!partition_tree(net_, pp, t)) return;
    } else {
      GreedyParams gp;
      gp.key = GreedyParams::Key::log_ratio;
      gp.costmod = 1 + unit(rng);
      gp.temperature = 0.005 * std::pow(60.0, unit(rng));
      gp.seed = rng();
      const Pairs pairs = greedy(net_, gp, obj_.limit);
      if (pairs.empty()) return;
      t = tree_from_pairs(net_, pairs);
    }
    if (strategy_ == EinsumStrategy::hyper) reconfigure(net_, t, kTrialLeaves, obj_, deadline_);
    if (!fits(t, obj_.limit)) return;
    std::vector<std::int64_t> chunks;
    Score s = judge(t, chunks);
    if (slice_limit_ > 0 && strategy_ == EinsumStrategy::hyper) {
      // The trial's tree re-optimised as it is cut (Note [Sliced search]).
      Tree u = t;
      std::vector<std::int64_t> cut;
      const SliceRule rule{SliceRule::Pick::excess_per_flop, false};
      if (slice_and_reconfigure(net_, u, candidates_, slice_limit_, kTrialLeaves, rule, deadline_,
                                cut)) {
        const Score su = sliced_score(u, cut);
        if (obj_.better(su, s)) {
          s = su;
          chunks = std::move(cut);
          t = std::move(u);
        }
      }
    }
    if (std::isfinite(s.flops)) consider({s, k + 1, pairs_from_tree(t), std::move(chunks)});
  }

  Net net_;
  EinsumStrategy strategy_;
  Objective obj_;
  Clock::time_point start_, deadline_, trial_deadline_;
  bool fixed_trials_ = false;
  std::uint64_t trials_ = 0, seed_ = 0;
  int threads_ = 0;
  double slice_limit_ = 0;
  std::vector<Label> candidates_;
  std::atomic<std::uint64_t> next_{0}, done_{0};
  static constexpr std::size_t kTop = 4;
  static constexpr int kAnnealRounds = 8;
  static constexpr int kTrialLeaves = 6;
  static constexpr int kSlicedTemperatures = 4000;
  static constexpr std::uint64_t kSlicedRounds = 16;
  static constexpr std::uint64_t kRoundIds = std::uint64_t{1} << 62;
  static constexpr double kSlicedTrialShare = 0.25;
  std::mutex mu_;
  std::vector<Found> top_;
};

}  // namespace

RawPath hyper_search(const PathProblem& p, const EinsumOptions& o, EinsumStrategy strategy) {
  Driver d(p, o, strategy);
  for (const Pairs& pairs : greedy_candidates(d.net(), d.objective().limit)) d.baseline(pairs);
  d.run_trials();
  d.refine();
  if (!d.best()) return RawPath{};  // nothing within the memory limit
  RawPath r = evaluate_pairs(p, d.best()->pairs);
  r.trials = d.trials_run();
  return r;
}

SlicedTree hyper_search_sliced(const PathProblem& p, const EinsumOptions& o,
                               EinsumStrategy strategy, double limit,
                               std::span<const Label> candidates) {
  Driver d(p, o, strategy);
  d.slice_to(limit, candidates);
  for (const Pairs& pairs : greedy_candidates(d.net(), 0)) d.baseline(pairs);
  d.run_trials();
  d.refine();
  if (!d.best()) return SlicedTree{};  // no tree could be sliced within the limit
  return SlicedTree{d.best()->pairs, d.best()->chunks, d.trials_run()};
}

}  // namespace tenferro::detail::einsum::search
