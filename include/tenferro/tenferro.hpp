// The umbrella header: everything public.
#pragma once

#include "tenferro/autodiff.hpp"
#include "tenferro/cpu.hpp"
#include "tenferro/custom_rules.hpp"
#include "tenferro/dtype.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/error.hpp"
#include "tenferro/finfo.hpp"
#include "tenferro/fixed_point.hpp"
#include "tenferro/krylov.hpp"
#include "tenferro/ops.hpp"
#include "tenferro/slicing.hpp"
#include "tenferro/symmetric.hpp"
#include "tenferro/tensor.hpp"
#include "tenferro/trace.hpp"
