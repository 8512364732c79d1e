// Abelian groups, legs and the fusion of legs (tenferro/symmetric.hpp).
#include <algorithm>
#include <numeric>
#include <sstream>

#include "symmetric/internal.hpp"

namespace tenferro::symmetric {

Group Group::u1() {
  Group g;
  g.moduli_ = {0};
  return g;
}

Group Group::zn(std::int64_t n) {
  if (n < 2)
    throw Error(ErrorKind::InvalidArgument,
                "symmetric::Group::zn: n must be >= 2 (got " + std::to_string(n) + ")");
  Group g;
  g.moduli_ = {n};
  return g;
}

Group operator*(const Group& a, const Group& b) {
  Group g = a;
  g.moduli_.insert(g.moduli_.end(), b.moduli_.begin(), b.moduli_.end());
  return g;
}

Charge Group::canonical(const Charge& a) const {
  if (a.size() != moduli_.size())
    throw Error(ErrorKind::InvalidArgument, "symmetric: charge " + detail::charge_string(a) +
                                                " has " + std::to_string(a.size()) +
                                                " entries; group " + to_string() + " needs " +
                                                std::to_string(moduli_.size()));
  Charge c = a;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (moduli_[i] > 0) c[i] = ((c[i] % moduli_[i]) + moduli_[i]) % moduli_[i];
  return c;
}

namespace {
void require_length(const Group& g, const Charge& a, const char* op) {
  if (a.size() != g.num_factors())
    throw Error(ErrorKind::InvalidArgument,
                std::string("symmetric::Group::") + op + ": charge " + detail::charge_string(a) +
                    " has " + std::to_string(a.size()) + " entries; group " + g.to_string() +
                    " needs " + std::to_string(g.num_factors()));
}
}  // namespace

Charge Group::fuse(const Charge& a, const Charge& b) const {
  require_length(*this, a, "fuse");
  require_length(*this, b, "fuse");
  Charge c(moduli_.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    c[i] = a[i] + b[i];
    if (moduli_[i] > 0) c[i] = ((c[i] % moduli_[i]) + moduli_[i]) % moduli_[i];
  }
  return c;
}

Charge Group::dual(const Charge& a) const {
  require_length(*this, a, "dual");
  Charge c(moduli_.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    c[i] = -a[i];
    if (moduli_[i] > 0) c[i] = ((c[i] % moduli_[i]) + moduli_[i]) % moduli_[i];
  }
  return c;
}

std::string Group::to_string() const {
  if (moduli_.empty()) return "trivial";
  std::string s;
  for (std::size_t i = 0; i < moduli_.size(); ++i) {
    if (i) s += "x";
    s += moduli_[i] == 0 ? "U(1)" : "Z" + std::to_string(moduli_[i]);
  }
  return s;
}

namespace detail {

std::string charge_string(const Charge& c) {
  if (c.size() == 1) return std::to_string(c[0]);
  std::string s = "(";
  for (std::size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

Charge signed_charge(const Group& g, const Charge& c, Direction d) {
  return d == Direction::out ? c : g.dual(c);
}

}  // namespace detail

Leg::Leg(Group group, std::vector<Sector> sectors, Direction direction)
    : Leg(std::move(group), std::move(sectors), direction, nullptr) {}

Leg::Leg(Group group, std::vector<Sector> sectors, Direction direction,
         std::shared_ptr<const Fusion> fusion)
    : group_(std::move(group)),
      sectors_(std::move(sectors)),
      direction_(direction),
      fusion_(std::move(fusion)) {
  offsets_.reserve(sectors_.size());
  for (std::size_t s = 0; s < sectors_.size(); ++s) {
    Sector& sec = sectors_[s];
    sec.charge = group_.canonical(sec.charge);
    if (sec.dim < 0)
      throw Error(ErrorKind::InvalidArgument, "symmetric::Leg: sector " + std::to_string(s) +
                                                  " (charge " + detail::charge_string(sec.charge) +
                                                  ") has negative dimension " +
                                                  std::to_string(sec.dim));
    for (std::size_t t = 0; t < s; ++t)
      if (sectors_[t].charge == sec.charge)
        throw Error(ErrorKind::InvalidArgument,
                    "symmetric::Leg: charge " + detail::charge_string(sec.charge) +
                        " appears in sectors " + std::to_string(t) + " and " + std::to_string(s) +
                        " (each charge must be one sector)");
    offsets_.push_back(dim_);
    dim_ += sec.dim;
  }
}

Leg Leg::trivial(std::int64_t dim, Direction direction) {
  return Leg(Group(), {Sector{{}, dim}}, direction);
}

std::size_t Leg::checked(std::size_t s) const {
  if (s >= sectors_.size())
    throw Error(ErrorKind::InvalidArgument, "symmetric::Leg: sector " + std::to_string(s) +
                                                " of a leg with " +
                                                std::to_string(sectors_.size()) + " sectors");
  return s;
}

std::int64_t Leg::find(const Charge& charge) const {
  for (std::size_t s = 0; s < sectors_.size(); ++s)
    if (sectors_[s].charge == charge) return static_cast<std::int64_t>(s);
  return -1;
}

Leg Leg::dual() const {
  Leg l = *this;
  l.direction_ = flip(direction_);
  if (fusion_) {
    // The parts flip with the leg, so split() of the dual gives the duals of the parts.
    auto f = std::make_shared<Fusion>(*fusion_);
    for (Leg& p : f->parts) p = p.dual();
    l.fusion_ = std::move(f);
  }
  return l;
}

const std::vector<Leg>& Leg::fused_from() const {
  if (!fusion_)
    throw Error(ErrorKind::InvalidArgument,
                "symmetric::Leg::fused_from: leg " + to_string() + " was not made by fuse");
  return fusion_->parts;
}

std::string Leg::to_string() const {
  std::ostringstream os;
  os << group_.to_string() << (direction_ == Direction::out ? " out [" : " in [");
  for (std::size_t s = 0; s < sectors_.size(); ++s)
    os << (s ? ", " : "") << detail::charge_string(sectors_[s].charge) << ":" << sectors_[s].dim;
  os << "]";
  if (fusion_) os << " fused from " << fusion_->parts.size();
  return os.str();
}

namespace {
bool same_fusion(const std::shared_ptr<const Fusion>& a, const std::shared_ptr<const Fusion>& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->parts.size() != b->parts.size()) return false;
  for (std::size_t i = 0; i < a->parts.size(); ++i)
    if (!(a->parts[i] == b->parts[i])) return false;
  return true;
}
// The parts of the dual of a fused leg are the duals of the parts.
bool dual_fusion(const std::shared_ptr<const Fusion>& a, const std::shared_ptr<const Fusion>& b) {
  if (!a && !b) return true;
  if (!a || !b) return false;
  if (a->parts.size() != b->parts.size()) return false;
  for (std::size_t i = 0; i < a->parts.size(); ++i)
    if (!is_dual(a->parts[i], b->parts[i])) return false;
  return true;
}
}  // namespace

bool operator==(const Leg& a, const Leg& b) {
  return a.direction_ == b.direction_ && a.group_ == b.group_ && a.sectors_ == b.sectors_ &&
         same_fusion(a.fusion_, b.fusion_);
}

bool is_dual(const Leg& a, const Leg& b) {
  return a.direction_ != b.direction_ && a.group_ == b.group_ && a.sectors_ == b.sectors_ &&
         dual_fusion(a.fusion_, b.fusion_);
}

Leg fuse_legs(std::span<const Leg> legs, Direction direction) {
  return detail::fuse_legs_in(legs.empty() ? Group() : legs[0].group(), legs, direction);
}

namespace {

Leg build_fused_leg(const Group& g, std::span<const Leg> legs, Direction direction);

// A cheap fingerprint of a list of legs (the cache compares the legs in full on a match).
std::uint64_t legs_hash(std::span<const Leg> legs, Direction direction) {
  std::uint64_t h = 1469598103934665603ULL ^ static_cast<std::uint64_t>(direction);
  auto mix = [&](std::uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
  for (const Leg& l : legs) {
    mix(static_cast<std::uint64_t>(l.direction()));
    mix(static_cast<std::uint64_t>(l.dim()));
    for (const Sector& s : l.sectors()) {
      mix(static_cast<std::uint64_t>(s.dim));
      for (auto q : s.charge) mix(static_cast<std::uint64_t>(q));
    }
  }
  return h;
}

}  // namespace

// Note [Fused leg cache]: contractions and decompositions fuse the same legs over and over (a
// Krylov solve applies one map to tens of vectors with equal legs), and building a Fusion
// enumerates every tuple of part sectors. The last 64 fusions of each thread are kept; a hit
// returns the same Leg (sharing its Fusion), which also makes later equality checks of the fused
// legs a pointer comparison.
Leg detail::fuse_legs_in(const Group& g, std::span<const Leg> legs, Direction direction) {
  struct Entry {
    std::uint64_t hash;
    Direction direction;
    Group group;
    std::vector<Leg> parts;
    Leg fused;
  };
  thread_local std::vector<Entry> cache;
  const std::uint64_t h = legs_hash(legs, direction);
  for (std::size_t i = 0; i < cache.size(); ++i) {
    Entry& e = cache[i];
    if (e.hash != h || e.direction != direction || e.parts.size() != legs.size() || !(e.group == g))
      continue;
    if (!std::equal(legs.begin(), legs.end(), e.parts.begin())) continue;
    Leg out = e.fused;
    if (i > 0)
      std::rotate(cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(i),
                  cache.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    return out;
  }
  Leg fused = build_fused_leg(g, legs, direction);
  if (cache.size() >= 64) cache.pop_back();
  cache.insert(cache.begin(), Entry{h, direction, g, {legs.begin(), legs.end()}, fused});
  return fused;
}

namespace {

Leg build_fused_leg(const Group& g, std::span<const Leg> legs, Direction direction) {
  for (const Leg& l : legs)
    if (!(l.group() == g))
      throw Error(ErrorKind::InvalidArgument, "symmetric::fuse: legs of groups " + g.to_string() +
                                                  " and " + l.group().to_string() +
                                                  " cannot be fused");
  // Enumerate part tuples row-major; each contributes to the charge sign(direction) * sum.
  struct Item {
    Charge charge;
    std::vector<std::int64_t> parts;
    std::int64_t dim;
  };
  std::vector<Item> items{{g.identity(), {}, 1}};
  for (const Leg& l : legs) {
    std::vector<Item> next;
    next.reserve(items.size() * l.num_sectors());
    for (const Item& it : items)
      for (std::size_t s = 0; s < l.num_sectors(); ++s) {
        Item n{g.fuse(it.charge, detail::signed_charge(g, l.charge(s), l.direction())), it.parts,
               it.dim * l.sector_dim(s)};
        n.parts.push_back(static_cast<std::int64_t>(s));
        next.push_back(std::move(n));
      }
    items = std::move(next);
  }
  auto fusion = std::make_shared<Fusion>();
  fusion->parts.assign(legs.begin(), legs.end());
  std::map<Charge, std::vector<const Item*>> by_charge;
  for (const Item& it : items)
    by_charge[detail::signed_charge(g, it.charge, direction)].push_back(&it);
  std::vector<Sector> sectors;
  for (auto& [charge, list] : by_charge) {
    const auto f = static_cast<std::int64_t>(sectors.size());
    std::vector<Fusion::Piece> pieces;
    std::int64_t off = 0;
    for (const Item* it : list) {
      fusion->index[it->parts] = {f, static_cast<std::int64_t>(pieces.size())};
      pieces.push_back({it->parts, off, it->dim});
      off += it->dim;
    }
    fusion->pieces.push_back(std::move(pieces));
    sectors.push_back({charge, off});
  }
  return Leg(g, std::move(sectors), direction, std::move(fusion));
}

}  // namespace

}  // namespace tenferro::symmetric
