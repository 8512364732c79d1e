// Placeholder: filled by the elementwise family.
#pragma once

#include "tenferro/tensor.hpp"
