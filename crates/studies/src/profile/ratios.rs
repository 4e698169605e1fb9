//! BC and BD equivalent ratios (ABLE §5.2): r_op = c_conv / (c_op,bool − c_op,crt), how
//! many instances of a common op moved from Boolean to CRT GC pay for one conversion, and
//! 1/r, the conversions one op pays for. CRT costs are over the optimized primes.

use serde::Serialize;

use super::workload::{find, Op, Record, Repr};

/// The costs a ratio is taken over: stream GC cares about table bytes and garbling time,
/// GC with preprocessing about table storage and evaluation time (ABLE §5.2.1–5.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cost {
    TableBytes,
    GarbleTime,
    EvalTime,
}

impl Cost {
    pub const ALL: [Cost; 3] = [Cost::TableBytes, Cost::GarbleTime, Cost::EvalTime];

    /// ABLE's row label.
    pub fn title(self) -> &'static str {
        match self {
            Cost::TableBytes => "Gb Table",
            Cost::GarbleTime => "Gb Time",
            Cost::EvalTime => "Ev Time",
        }
    }

    fn of(self, r: &Record) -> f64 {
        match self {
            Cost::TableBytes => r.table_bytes as f64,
            Cost::GarbleTime => r.garble_us,
            Cost::EvalTime => r.eval_us,
        }
    }
}

/// The common ops of ABLE's Tables 5–6, in their column order.
pub const ABLE_OPS: [Op; 5] = [Op::Add, Op::Sub, Op::PubMul, Op::Mul, Op::PubExp];

/// ABLE's published inverse BC equivalent ratios (Table 5; Intel i7-10700K): (width, cost,
/// 1/r for Add, Sub, Pub Mul, Mul, Pub Exp). Reference values, not measured here.
pub const ABLE_TABLE_5: [(u32, Cost, [f64; 5]); 12] = [
    (4, Cost::TableBytes, [1.000, 1.000, 1.500, 6.750, 24.125]),
    (4, Cost::GarbleTime, [0.105, 0.090, 0.248, 0.350, 2.307]),
    (4, Cost::EvalTime, [0.151, 0.132, 0.393, 0.808, 3.826]),
    (8, Cost::TableBytes, [0.667, 0.667, 1.167, 10.917, 36.958]),
    (8, Cost::GarbleTime, [0.069, 0.059, 0.161, 0.933, 3.587]),
    (8, Cost::EvalTime, [0.090, 0.080, 0.234, 1.550, 5.046]),
    (16, Cost::TableBytes, [0.400, 0.400, 0.750, 14.275, 47.538]),
    (16, Cost::GarbleTime, [0.038, 0.034, 0.094, 1.240, 4.276]),
    (16, Cost::EvalTime, [0.052, 0.047, 0.136, 1.903, 5.991]),
    (32, Cost::TableBytes, [0.222, 0.222, 0.431, 16.618, 54.726]),
    (32, Cost::GarbleTime, [0.019, 0.017, 0.046, 1.293, 4.259]),
    (32, Cost::EvalTime, [0.028, 0.026, 0.073, 2.137, 6.633]),
];

/// ABLE's published inverse BD equivalent ratios (Table 6), as [`ABLE_TABLE_5`].
pub const ABLE_TABLE_6: [(u32, Cost, [f64; 5]); 12] = [
    (4, Cost::TableBytes, [0.029, 0.029, 0.044, 0.196, 0.702]),
    (4, Cost::GarbleTime, [0.004, 0.003, 0.009, 0.013, 0.084]),
    (4, Cost::EvalTime, [0.005, 0.004, 0.013, 0.027, 0.126]),
    (8, Cost::TableBytes, [0.017, 0.017, 0.030, 0.280, 0.947]),
    (8, Cost::GarbleTime, [0.004, 0.003, 0.009, 0.055, 0.211]),
    (8, Cost::EvalTime, [0.005, 0.004, 0.013, 0.084, 0.274]),
    (16, Cost::TableBytes, [0.012, 0.012, 0.023, 0.442, 1.473]),
    (16, Cost::GarbleTime, [0.005, 0.004, 0.012, 0.154, 0.529]),
    (16, Cost::EvalTime, [0.006, 0.006, 0.016, 0.225, 0.708]),
    (32, Cost::TableBytes, [0.007, 0.007, 0.013, 0.513, 1.691]),
    (32, Cost::GarbleTime, [0.004, 0.004, 0.010, 0.290, 0.955]),
    (32, Cost::EvalTime, [0.005, 0.005, 0.014, 0.420, 1.303]),
];

/// ABLE's published 1/r for (conversion, width, cost, op), if it has one.
pub fn able_inverse(conversion: Op, width: u32, cost: Cost, op: Op) -> Option<f64> {
    let table = match conversion {
        Op::Bc => &ABLE_TABLE_5,
        _ => &ABLE_TABLE_6,
    };
    let column = ABLE_OPS.iter().position(|&o| o == op)?;
    table
        .iter()
        .find(|(w, c, _)| *w == width && *c == cost)
        .map(|(_, _, values)| values[column])
}

/// One equivalent ratio.
#[derive(Clone, Debug, Serialize)]
pub struct Ratio {
    /// `bc` or `bd`.
    pub conversion: Op,
    pub op: Op,
    pub width: u32,
    pub cost: Cost,
    /// The conversion's cost.
    pub conversion_cost: f64,
    /// c_op,bool − c_op,crt-opt; ≤ 0 where the CRT op costs at least as much.
    pub saving: f64,
    /// c_conv / saving; `null` where the saving is ≤ 0 (moving the op never pays).
    pub ratio: Option<f64>,
    /// saving / c_conv (negative where moving the op costs more).
    pub inverse: f64,
    /// ABLE's published 1/r (Tables 5–6), where it has one.
    pub able_inverse: Option<f64>,
}

/// Every ratio the records allow: both conversions, every width, cost and common op.
pub fn ratios(records: &[Record], widths: &[u32]) -> Vec<Ratio> {
    let mut out = Vec::new();
    for conversion in [Op::Bc, Op::Bd] {
        for &width in widths {
            let Some(conv) = find(records, conversion, Repr::CrtOpt, width) else {
                continue;
            };
            for cost in Cost::ALL {
                for op in Op::COMMON {
                    let (Some(b), Some(c)) = (
                        find(records, op, Repr::Bool, width),
                        find(records, op, Repr::CrtOpt, width),
                    ) else {
                        continue;
                    };
                    let conversion_cost = cost.of(conv);
                    let saving = cost.of(b) - cost.of(c);
                    out.push(Ratio {
                        conversion,
                        op,
                        width,
                        cost,
                        conversion_cost,
                        saving,
                        ratio: (saving > 0.0).then(|| conversion_cost / saving),
                        inverse: saving / conversion_cost,
                        able_inverse: able_inverse(conversion, width, cost, op),
                    });
                }
            }
        }
    }
    out
}
