// Placeholder: filled by the autodiff module.
#pragma once

#include "tenferro/tensor.hpp"
