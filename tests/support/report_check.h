// SPDX-License-Identifier: MIT
// Test support for the report writers' tests: a hand-built RunReport is checked to be one
// ctxo-conform could have written, before a writer is tested on it.
#pragma once

#include <gtest/gtest.h>

#include "engine/report.h"
#include "reports/json_report.h"

namespace ctxo::test {

/// `r`, after checking that its JSON report validates against schemas/report.schema.json and
/// reads back (what `ctxo-conform merge` does with it): a fixture no run could produce would test
/// the writers on input they never get.
inline engine::RunReport as_written(engine::RunReport r) {
  const auto back = reports::from_json(reports::to_json(r, "0.0.0-test"));
  EXPECT_TRUE(back.ok()) << "this fixture is not a report ctxo-conform could write: " << back.error().message;
  return r;
}

}  // namespace ctxo::test
