//! Checks of the design right after `proc`, before anything is optimized away: latches,
//! flip-flops and initial values have no place in a combinational circuit.

use crate::json::{location, Design};
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
