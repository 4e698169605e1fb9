//! Which party owns each input port, and the Bristol order that follows from it.

use crate::json::Module;
use crate::HdlError;

/// Who supplies an input port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Garbler,
    Evaluator,
}

/// One port of the synthesized module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortInfo {
    pub name: String,
    pub width: u32,
    /// `Some` for input ports, `None` for outputs.
    pub owner: Option<Owner>,
}

/// Ports with their indices into the module's port list.
pub type PortPlan = Vec<(usize, PortInfo)>;

/// Classifies the top module's ports: `g_*` garbler, `e_*` evaluator, names in
/// `garbler_ports` garbler; any other input is an error, as is an inout port. A `clk`
/// input (a sequential design's clock) is not a data input and is left out. Returns (inputs, outputs) with their indices into the
/// module's port list; inputs are ordered garbler ports first, each party's ports in
/// declaration order (mixgc run's rule: the garbler owns the first K values).
pub fn plan(
    module_name: &str,
    module: &Module,
    garbler_ports: &[String],
) -> Result<(PortPlan, PortPlan), HdlError> {
    for listed in garbler_ports {
        let is_input = module
            .ports
            .0
            .iter()
            .any(|(n, p)| n == listed && p.direction == "input");
        if !is_input {
            return Err(HdlError::UnknownGarblerPort {
                port: listed.clone(),
                module: module_name.to_string(),
            });
        }
    }
    let (mut garbler, mut evaluator, mut outputs) = (Vec::new(), Vec::new(), Vec::new());
    for (index, (name, port)) in module.ports.0.iter().enumerate() {
        let width = u32::try_from(port.bits.len()).map_err(|_| HdlError::TooLarge {
            what: "bits in one port",
            count: port.bits.len() as u64,
            max: u64::from(u32::MAX),
        })?;
        let info = |owner| PortInfo {
            name: name.clone(),
            width,
            owner,
        };
        match port.direction.as_str() {
            "output" => outputs.push((index, info(None))),
            "input" if name == "clk" => {}
            "input" if name.starts_with("g_") || garbler_ports.contains(name) => {
                garbler.push((index, info(Some(Owner::Garbler))))
            }
            "input" if name.starts_with("e_") => evaluator.push((index, info(Some(Owner::Evaluator)))),
            "input" => return Err(HdlError::UnownedPort { port: name.clone() }),
            _ => {
                return Err(HdlError::InoutPort {
                    port: name.clone(),
                    module: module_name.to_string(),
                })
            }
        }
    }
    if outputs.is_empty() {
        return Err(HdlError::NoOutputs {
            module: module_name.to_string(),
        });
    }
    garbler.extend(evaluator);
    Ok((garbler, outputs))
}

/// The net of the module's `clk` input, the mark of a sequential design; `None` if it has
/// none. A `clk` wider than one bit is refused.
pub fn clock_net(module_name: &str, module: &Module) -> Result<Option<u64>, HdlError> {
    let Some((_, port)) = module
        .ports
        .0
        .iter()
        .find(|(n, p)| n == "clk" && p.direction == "input")
    else {
        return Ok(None);
    };
    match port.bits.as_slice() {
        [crate::json::Bit::Net(n)] => Ok(Some(*n)),
        _ => Err(HdlError::Unsupported {
            location: crate::json::location(&module.attributes, module_name),
            construct: format!("a `clk` port of {} bits", port.bits.len()),
            why: "the clock is one bit".to_string(),
        }),
    }
}
