// Placeholder: filled by the contract family.
#pragma once

#include "tenferro/tensor.hpp"
