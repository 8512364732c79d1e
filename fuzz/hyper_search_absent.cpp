// The fuzz target links the path search without the runtime (subscripts, path, greedy and
// reconfiguration only). It plans with the automatic strategy, which never reaches random_greedy
// or hyper (path_hyper.cpp spreads trials over a backend); this definition makes that explicit.
#include "einsum/path_search.hpp"

namespace tenferro::detail::einsum::search {

RawPath hyper_search(const PathProblem&, const EinsumOptions&, EinsumStrategy) {
  throw Error(ErrorKind::Unsupported, "einsum fuzz target: random_greedy and hyper are not linked");
}

}  // namespace tenferro::detail::einsum::search
