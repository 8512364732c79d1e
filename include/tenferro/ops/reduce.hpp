// Placeholder: filled by the reduce family.
#pragma once

#include "tenferro/tensor.hpp"
