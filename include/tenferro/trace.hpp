// Placeholder: filled by the trace module.
#pragma once

#include "tenferro/tensor.hpp"
