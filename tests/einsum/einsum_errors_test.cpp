// Bad input: each error is a typed tenferro::Error whose message names the position.
#include <gtest/gtest.h>

#include "common/expect_error.hpp"
#include "tenferro/einsum.hpp"
#include "tenferro/ops.hpp"

namespace {

using namespace tenferro;
using tenferro::testing::expect_error;

std::vector<Dims> mat2() { return {{2, 3}, {3, 4}}; }

TEST(EinsumErrors, MalformedSubscriptsNameThePosition) {
  struct Row {
    const char* spec;
    const char* where;
    const char* what;
  };
  const Row rows[] = {
      {"ij,j1->ik", "position 4", "invalid character '1'"},
      {"ij..,jk", "position 2", "'.' that does not start '...'"},
      {"...i...,jk", "position 4", "second '...'"},
      {"ij->jk->k", "position 6", "second '->'"},
      {"ij-jk", "position 2", "'-' not followed by '>'"},
      {"ij>jk", "position 2", "'>' without '-'"},
      {"ij,jk->i,k", "position 8", "',' in the output"},
      {"ij,jk->ii", "position 8", "repeats at position 7"},
      {"ij,jk->iz", "position 8", "does not appear in any input"},
      {"ij,jk->\x01", "position 7", "byte 1"},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.spec);
    expect_error([&] { einsum_path(r.spec, mat2()); }, ErrorKind::InvalidArgument,
                 {"einsum", r.where, r.what});
  }
}

TEST(EinsumErrors, RankAndCountMismatch) {
  expect_error([] { einsum_path("ijk,jk->ik", mat2()); }, ErrorKind::InvalidArgument,
               {"operand 0 has rank 2", "position 0", "names 3"});
  expect_error([] { einsum_path("ij,jkl->ik", mat2()); }, ErrorKind::InvalidArgument,
               {"operand 1 has rank 2", "position 3"});
  expect_error(
      [] {
        einsum_path("...ijk", {{2, 3}});
      },
      ErrorKind::InvalidArgument, {"rank 2", "plus '...'"});
  expect_error([] { einsum_path("ij,jk,kl", mat2()); }, ErrorKind::InvalidArgument,
               {"names 3 operand(s) but 2 were given"});
  expect_error([] { einsum_path("ij", mat2()); }, ErrorKind::InvalidArgument,
               {"names 1 operand(s) but 2 were given"});
}

TEST(EinsumErrors, InconsistentSizesAreShapeMismatch) {
  expect_error(
      [] {
        einsum_path("ij,jk->ik", {{2, 3}, {4, 5}});
      },
      ErrorKind::ShapeMismatch,
      {"label 'j'", "size 4 in operand 1", "position 3", "size 3 in operand 0", "position 1"});
  expect_error(
      [] {
        einsum_path("ii", {{2, 3}});
      },
      ErrorKind::ShapeMismatch, {"label 'i'", "position 1", "position 0"});
  expect_error(
      [] {
        einsum_path("...i,...i", {{2, 3}, {4, 3}});
      },
      ErrorKind::ShapeMismatch, {"'...'", "expected equal sizes or 1"});
}

TEST(EinsumErrors, IntegerForm) {
  Tensor a = randn({2, 3}, 1), b = randn({3, 4}, 2);
  expect_error(
      [&] {
        einsum({a, b}, {{0, -1}, {1, 2}}, {0, 2});
      },
      ErrorKind::InvalidArgument, {"label -1", "operand 0", "entry 1", "negative"});
  expect_error(
      [&] {
        einsum({a, b}, {{0, 1}, {1, 2}}, {0, 0});
      },
      ErrorKind::InvalidArgument, {"output label 0", "repeats"});
  expect_error(
      [&] {
        einsum({a, b}, {{0, 1}, {1, 2}}, {7});
      },
      ErrorKind::InvalidArgument, {"output label 7", "does not appear"});
  expect_error(
      [&] {
        einsum({a, b}, {{0, 1, 5}, {1, 2}}, {0, 2});
      },
      ErrorKind::InvalidArgument, {"operand 0 has rank 2"});
  expect_error(
      [&] {
        einsum({a, b}, {{0, 1}}, {0});
      },
      ErrorKind::InvalidArgument, {"1 operand(s) but 2 were given"});
  expect_error(
      [&] {
        einsum({a, b}, {{0, 1}, {0, 3}}, {0});
      },
      ErrorKind::ShapeMismatch, {"label 0", "operand 1"});
}

TEST(EinsumErrors, OperandsAndPlans) {
  Tensor a = randn({2, 3}, 1), b = randn({3, 4}, 2);
  expect_error([&] { einsum("ij,jk->ik", a, Tensor()); }, ErrorKind::InvalidArgument,
               {"operand 1", "undefined"});
  expect_error([&] { einsum("ij,jk->ik", {a}); }, ErrorKind::InvalidArgument,
               {"2 operand(s) but 1"});
  EinsumPlan plan = prepare_einsum("ij,jk->ik", mat2(), {DType::f64});
  expect_error([&] { plan({a}); }, ErrorKind::InvalidArgument, {"expected 2 operands"});
  expect_error(
      [&] {
        plan({a, randn({3, 5}, 3)});
      },
      ErrorKind::ShapeMismatch, {"operand 1", "[3, 5]", "[3, 4]"});
  expect_error(
      [&] {
        plan({a, randn({3, 4}, 3, DType::f32)});
      },
      ErrorKind::DTypeMismatch, {"operand 1", "f32", "f64"});
  expect_error([&] { EinsumPlan()({a, b}); }, ErrorKind::RuntimeState, {"empty"});
  expect_error(
      [&] {
        prepare_einsum("ij,jk->ik", mat2(), {DType::f64, DType::f32, DType::f32});
      },
      ErrorKind::InvalidArgument, {"3 dtypes for 2 operands"});
  std::vector<EinsumLabels> many;
  std::vector<Dims> shapes;
  for (int k = 0; k < 17; ++k) {
    many.push_back({k, k + 1});
    shapes.push_back({2, 2});
  }
  expect_error(
      [&] {
        einsum_path(many, {0, 17}, shapes, {.strategy = EinsumStrategy::optimal});
      },
      ErrorKind::InvalidArgument, {"at most 16 operands"});
  // A failed call leaves the plan usable.
  EXPECT_EQ(plan({a, b}).shape(), (Dims{2, 4}));
}

}  // namespace
