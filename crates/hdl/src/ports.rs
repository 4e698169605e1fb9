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
/// `garbler_ports` garbler; any other input is an error, as is an inout port or a `clk`
/// input (a sequential design). Returns (inputs, outputs) with their indices into the
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
            "input" if name == "clk" => return Err(clock_error(module_name, module)),
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

/// Fails if the module has a `clk` input, the mark of a sequential design.
pub fn refuse_clock(module_name: &str, module: &Module) -> Result<(), HdlError> {
    let has_clock = module
        .ports
        .0
        .iter()
        .any(|(n, p)| n == "clk" && p.direction == "input");
    if has_clock {
        return Err(clock_error(module_name, module));
    }
    Ok(())
}

fn clock_error(module_name: &str, module: &Module) -> HdlError {
    HdlError::Sequential {
        location: crate::json::location(&module.attributes, module_name),
        what: format!("module `{module_name}` has a `clk` input"),
    }
}
