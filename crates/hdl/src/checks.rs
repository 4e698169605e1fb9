//! Checks of the design right after `proc`, before anything is optimized away: latches,
//! flip-flops and initial values have no place in a combinational circuit.

use crate::json::{location, Bit, Design};
use crate::HdlError;

/// Fails on the first latch, flip-flop, memory with a clock, or wire with an initial
/// value, naming its source location.
pub fn combinational_only(design: &Design) -> Result<(), HdlError> {
    for (module_name, module) in &design.modules {
        for (cell_name, cell) in &module.cells {
            let kind = cell.kind.as_str();
            let loc = || location(&cell.attributes, &format!("module `{module_name}`"));
            let is_latch = kind.contains("dlatch") || kind.starts_with("$_SR") || kind == "$sr";
            if is_latch {
                return Err(HdlError::Unsupported {
                    location: loc(),
                    construct: format!("a latch (`{kind}` cell {cell_name})"),
                    why: "a signal keeps its value on some path of an always block; assign it on every path"
                        .to_string(),
                });
            }
            let is_flop = kind.contains("dff") || kind.contains("DFF") || kind.starts_with("$memwr");
            if is_flop {
                return Err(HdlError::Sequential {
                    location: loc(),
                    what: format!("a flip-flop or clocked memory (`{kind}` cell {cell_name})"),
                });
            }
        }
        for (net_name, net) in &module.netnames {
            if net.attributes.contains_key("init") {
                return Err(HdlError::Unsupported {
                    location: location(&net.attributes, &format!("module `{module_name}`")),
                    construct: format!("an initial value for `{net_name}`"),
                    why: "a combinational circuit has no initial state".to_string(),
                });
            }
        }
    }
    Ok(())
}

/// Asynchronous-reset and set/reset flip-flop cells (Yosys's coarse and fine names).
fn is_async_flop(kind: &str) -> bool {
    ["adff", "dffsr", "aldff", "ADFF", "DFFSR", "ALDFF"]
        .iter()
        .any(|k| kind.contains(k))
}

/// Checks a sequential design right after `proc` (TinyGarble's sequential circuits: one
/// clock, positive edge, registers with public initial values): latches, asynchronous
/// resets, clocked memories, flip-flops on another clock or the falling edge, and initial
/// values on wires that are not registers are refused with their location. `clk` is the
/// top module's clock net.
pub fn sequential_only(design: &Design, top: &str, clk: u64) -> Result<(), HdlError> {
    for (module_name, module) in &design.modules {
        let mut registers = std::collections::HashSet::new();
        let input_nets: std::collections::HashSet<u64> = module
            .ports
            .0
            .iter()
            .filter(|(_, p)| p.direction == "input")
            .flat_map(|(_, p)| p.bits.iter())
            .filter_map(|b| match b {
                Bit::Net(n) => Some(*n),
                Bit::Const(_) => None,
            })
            .collect();
        for (cell_name, cell) in &module.cells {
            let kind = cell.kind.as_str();
            let loc = || location(&cell.attributes, &format!("module `{module_name}`"));
            let unsupported = |construct: String, why: &str| HdlError::Unsupported {
                location: loc(),
                construct,
                why: why.to_string(),
            };
            if kind.contains("dlatch") || kind.starts_with("$_SR") || kind == "$sr" {
                return Err(unsupported(
                    format!("a latch (`{kind}` cell {cell_name})"),
                    "a signal keeps its value on some path of a combinational always block; \
                     assign it on every path, or make it a register of always @(posedge clk)",
                ));
            }
            if is_async_flop(kind) {
                return Err(unsupported(
                    format!("an asynchronous reset or set (`{kind}` cell {cell_name})"),
                    "garbled registers load only at the rising edge of `clk`: use a synchronous \
                     reset (if (rst) inside always @(posedge clk)) or an initial value",
                ));
            }
            let param_set = |name: &str| {
                cell.parameters
                    .get(name)
                    .and_then(|v| v.as_str())
                    .is_some_and(|v| v.contains('1'))
            };
            let clocked_memory = kind.starts_with("$memwr")
                || (kind.starts_with("$memrd") && param_set("CLK_ENABLE"))
                || (kind.starts_with("$mem_") && param_set("WR_PORTS"));
            if clocked_memory {
                return Err(unsupported(
                    format!("a written or clocked memory (`{kind}` cell {cell_name})"),
                    "read-only tables are fine; write registers instead of a memory array",
                ));
            }
            if kind == "$dff" || kind == "$dffe" || kind == "$sdff" || kind == "$sdffe" || kind == "$sdffce" {
                let clock = cell.connections.get("CLK").map(Vec::as_slice);
                let on_clk = match clock {
                    Some([Bit::Net(n)]) => {
                        if module_name == top {
                            *n == clk
                        } else {
                            input_nets.contains(n)
                        }
                    }
                    _ => false,
                };
                if !on_clk {
                    return Err(unsupported(
                        format!("a second clock (flip-flop `{cell_name}` is not clocked by `clk`)"),
                        "a sequential design has one clock, the input port `clk`",
                    ));
                }
                let rising = cell
                    .parameters
                    .get("CLK_POLARITY")
                    .and_then(|v| v.as_str())
                    .is_none_or(|p| p.trim_start_matches('0') == "1");
                if !rising {
                    return Err(unsupported(
                        format!("a falling-edge flip-flop (`{cell_name}`)"),
                        "registers load at the rising edge: use always @(posedge clk)",
                    ));
                }
                if let Some(q) = cell.connections.get("Q") {
                    registers.extend(q.iter().filter_map(|b| match b {
                        Bit::Net(n) => Some(*n),
                        Bit::Const(_) => None,
                    }));
                }
            } else if kind.contains("dff") || kind.contains("DFF") {
                return Err(unsupported(
                    format!("the flip-flop `{kind}` (cell {cell_name})"),
                    "only plain, enabled and synchronously reset registers of always @(posedge clk)",
                ));
            }
        }
        for (net_name, net) in &module.netnames {
            if !net.attributes.contains_key("init") {
                continue;
            }
            let all_registers = net.bits.iter().all(|b| match b {
                Bit::Net(n) => registers.contains(n),
                Bit::Const(_) => true,
            });
            if !all_registers {
                return Err(HdlError::Unsupported {
                    location: location(&net.attributes, &format!("module `{module_name}`")),
                    construct: format!("an initial value for `{net_name}`, which is not a register"),
                    why: "only registers of always @(posedge clk) take initial values".to_string(),
                });
            }
        }
    }
    Ok(())
}
