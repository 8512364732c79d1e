// All eager operations. Each is a primitive of the catalog (see docs/architecture.md).
#pragma once

#include "tenferro/eager.hpp"
#include "tenferro/ops/bitwise.hpp"
#include "tenferro/ops/contract.hpp"
#include "tenferro/ops/creation.hpp"
#include "tenferro/ops/elementwise.hpp"
#include "tenferro/ops/fft.hpp"
#include "tenferro/ops/indexing.hpp"
#include "tenferro/ops/linalg.hpp"
#include "tenferro/ops/reduce.hpp"
#include "tenferro/ops/scans.hpp"
#include "tenferro/ops/sets.hpp"
#include "tenferro/ops/sorting.hpp"
#include "tenferro/ops/structural.hpp"
