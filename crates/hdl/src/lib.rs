//! mixgc's HDL front end: Verilog to a Boolean circuit through Yosys logic synthesis, with
//! a GC technology library in which XOR, XNOR and NOT are free and every other gate costs
//! one AND (TinyGarble, thesis §3.2 and Table 3.1).
//!
//! The flow ([`synthesize`]): a lexical check of the sources for `initial` blocks and
//! simulation tasks; Yosys reads the files, elaborates the top module, checks for logic
//! loops, maps comparisons and arithmetic to one-AND ripple chains, and writes the netlist
//! twice, as mapped and after ABC's area mapping onto the GC library; the netlist with fewer
//! ANDs becomes a [`Circuit`]. Input ports named `g_*` belong to the garbler and `e_*` to
//! the evaluator; the circuit's inputs are the garbler's ports then the evaluator's, each in
//! declaration order, so `mixgc run --garbler-values K` takes K = the number of garbler
//! ports. Values are least significant bit first.
//!
//! A design with a `clk` input is sequential (thesis §3.2, "sequential circuits"): one
//! clock, rising edge, registers with public initial values (`reg x = V` or an `initial`
//! block assigning registers). Its flip-flops are cut out of the netlist, which becomes a
//! combinational core plus flip-flop declarations ([`mixgc_circuit::sequential`]); they cost
//! no AND. Latches, asynchronous resets, a second clock and falling edges are refused.

mod checks;
mod error;
mod json;
mod netlist;
mod ports;
mod scan;
mod yosys;

use std::collections::HashMap;
use std::path::PathBuf;

use mixgc_circuit::sequential::{FlopInit, InputMode, SeqInput, SeqOutput, Sequential};
use mixgc_circuit::{Circuit, PartyId};

pub use error::HdlError;
pub use netlist::MAX_GATES;
pub use ports::{Owner, PortInfo};

/// Largest Verilog source file read (the check reads it whole).
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;
/// Largest netlist JSON read back from Yosys.
pub const MAX_NETLIST_BYTES: u64 = 4 << 30;

/// What to synthesize and how.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    /// Verilog source files.
    pub files: Vec<PathBuf>,
    /// Top module; `None`: Yosys picks the module no other instantiates.
    pub top: Option<String>,
    /// Input ports owned by the garbler although not named `g_*`.
    pub garbler_ports: Vec<String>,
    /// The Yosys executable.
    pub yosys: String,
    /// Also map with ABC onto the GC library and keep the netlist with fewer ANDs (slower on
    /// large designs; the one-AND adders rarely lose).
    pub abc: bool,
    /// Input ports of a sequential design read once, at cycle 0, and held (the others take
    /// a value every cycle).
    pub once_ports: Vec<String>,
}

impl SynthOptions {
    /// Options for `files` with the defaults: automatic top, `yosys` from `PATH`.
    pub fn new(files: Vec<PathBuf>) -> SynthOptions {
        SynthOptions {
            files,
            top: None,
            garbler_ports: Vec::new(),
            yosys: "yosys".to_string(),
            abc: true,
            once_ports: Vec::new(),
        }
    }
}

/// Which of the two netlists was kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// One-AND adders and Yosys's gate mapping, without ABC.
    Structural,
    /// ABC area mapping onto the GC library.
    Abc,
}

/// A synthesized design.
#[derive(Clone, Debug)]
pub struct Synthesized {
    /// The top module's name.
    pub top: String,
    /// The circuit: inputs in [`Synthesized::inputs`] order, outputs in port order.
    pub circuit: Circuit,
    /// Input ports in circuit order: the garbler's first.
    pub inputs: Vec<PortInfo>,
    /// Output ports in declaration order.
    pub outputs: Vec<PortInfo>,
    /// How many input values the garbler owns (`mixgc run --garbler-values`).
    pub garbler_values: usize,
    /// The netlist that was kept.
    pub mapping: Mapping,
    /// For a design with a `clk` input: `circuit` as the combinational core, with the
    /// flip-flops and the ports' modes.
    pub sequential: Option<Sequential>,
}

/// Synthesizes `opts.files` into a circuit (see the [crate docs](crate)).
pub fn synthesize(opts: &SynthOptions) -> Result<Synthesized, HdlError> {
    if opts.files.is_empty() {
        return Err(HdlError::NoFiles);
    }
    let mut initials = Vec::new();
    for path in &opts.files {
        let text = read_bounded(path, MAX_SOURCE_BYTES, |bytes, max| HdlError::SourceTooLarge {
            path: path.clone(),
            bytes,
            max,
        })?;
        initials.extend(scan::check_source(&text, &path.display().to_string())?);
    }
    let scratch = yosys::Scratch::new()?;
    scratch.write("gc.lib", yosys::GC_LIB)?;
    scratch.write("gc_arith.v", yosys::GC_ARITH)?;
    scratch.write("gc_cmp.v", yosys::GC_CMP)?;
    scratch.write("gc_mul.v", yosys::GC_MUL)?;
    scratch.write("gc_popcount.v", yosys::GC_POPCOUNT)?;
    let script = yosys::script(&opts.files, opts.top.as_deref(), opts.abc, scratch.path());
    let script_path = scratch.write("synth.ys", &script)?;
    yosys::run(&opts.yosys, &script_path)?;

    let rtl = read_design(&scratch, "rtl.json")?;
    let (top, module) = top_module(&rtl, opts.top.as_deref())?;
    match ports::clock_net(top, module)? {
        Some(clk) => checks::sequential_only(&rtl, top, clk)?,
        None => {
            if let Some(first) = initials.first() {
                return Err(scan::initial_block_error(first));
            }
            checks::combinational_only(&rtl)?
        }
    }
    let aliases = register_aliases(module);
    let structural = from_design(
        &read_design(&scratch, "plain.json")?,
        opts,
        Mapping::Structural,
        &aliases,
    )?;
    if !opts.abc {
        return Ok(structural);
    }
    // ABC's netlist only replaces the structural one if it converts and has fewer ANDs
    // (flattening ABC's per-module netlists can leave dangling wires that nothing reads).
    let abc = read_design(&scratch, "abc.json").and_then(|d| from_design(&d, opts, Mapping::Abc, &aliases));
    match abc {
        Ok(abc) if abc.circuit.stats().ands < structural.circuit.stats().ands => Ok(abc),
        _ => Ok(structural),
    }
}

/// For the registers an init port sets: every other name of their bits in the design as
/// written (`assign total = acc;` makes `total[3]` a name of `acc[3]`), mapped to the
/// register's bit name. Yosys's clean-up keeps only one name per bit, often the output
/// port's, so the flip-flops are found by these names too.
fn register_aliases(rtl: &json::Module) -> HashMap<String, String> {
    let registers: Vec<&str> = rtl
        .ports
        .0
        .iter()
        .filter_map(|(name, _)| init_register(name))
        .collect();
    let bit_name = |name: &str, i: usize, width: usize| {
        if width == 1 {
            name.to_string()
        } else {
            format!("{name}[{i}]")
        }
    };
    let mut register_of: HashMap<u64, String> = HashMap::new();
    for (name, net) in &rtl.netnames {
        if registers.contains(&name.as_str()) {
            for (i, bit) in net.bits.iter().enumerate() {
                if let json::Bit::Net(n) = bit {
                    register_of.insert(*n, bit_name(name, i, net.bits.len()));
                }
            }
        }
    }
    let mut aliases = HashMap::new();
    for (name, net) in &rtl.netnames {
        for (i, bit) in net.bits.iter().enumerate() {
            if let Some(register) = match bit {
                json::Bit::Net(n) => register_of.get(n),
                json::Bit::Const(_) => None,
            } {
                aliases.insert(bit_name(name, i, net.bits.len()), register.clone());
            }
        }
    }
    aliases
}

fn from_design(
    design: &json::Design,
    opts: &SynthOptions,
    mapping: Mapping,
    aliases: &HashMap<String, String>,
) -> Result<Synthesized, HdlError> {
    let (top, module) = top_module(design, opts.top.as_deref())?;
    let (inputs, outputs) = ports::plan(top, module, &opts.garbler_ports)?;
    let clk = ports::clock_net(top, module)?;
    // In a sequential design, `g_init_R` / `e_init_R` ports set register R's initial value.
    let (init_ports, inputs): (ports::PortPlan, ports::PortPlan) = if clk.is_some() {
        inputs
            .into_iter()
            .partition(|(_, p)| init_register(&p.name).is_some())
    } else {
        (Vec::new(), inputs)
    };
    let init_registers: Vec<String> = init_ports
        .iter()
        .filter_map(|(_, p)| init_register(&p.name).map(str::to_string))
        .collect();
    let (circuit, flops) = netlist::convert(module, &inputs, &outputs, clk, &init_registers, aliases)?;
    let init_ports: Vec<PortInfo> = init_ports.into_iter().map(|(_, p)| p).collect();
    let garbler_values = inputs
        .iter()
        .filter(|(_, p)| p.owner == Some(Owner::Garbler))
        .count();
    let inputs: Vec<PortInfo> = inputs.into_iter().map(|(_, p)| p).collect();
    let outputs: Vec<PortInfo> = outputs.into_iter().map(|(_, p)| p).collect();
    let sequential = match clk {
        Some(_) => Some(sequential(
            &circuit,
            &inputs,
            &init_ports,
            &outputs,
            flops,
            &opts.once_ports,
        )?),
        None if !opts.once_ports.is_empty() => {
            return Err(HdlError::OncePortsCombinational {
                port: opts.once_ports[0].clone(),
            })
        }
        None => None,
    };
    Ok(Synthesized {
        top: top.clone(),
        circuit,
        inputs,
        outputs,
        garbler_values,
        mapping,
        sequential,
    })
}

/// The register an input port initializes, by the naming rule of sequential designs: a port
/// `g_init_R` (the garbler's) or `e_init_R` (the evaluator's) gives register R its value at
/// cycle 0, as a party's secret (not a core input; R needs no initial value in the source,
/// and one there is overridden).
pub fn init_register(port: &str) -> Option<&str> {
    port.strip_prefix("g_init_")
        .or_else(|| port.strip_prefix("e_init_"))
        .filter(|r| !r.is_empty())
}

/// The sequential netlist of a clocked design's core; the init ports come after the other
/// input ports, in declaration order.
fn sequential(
    core: &Circuit,
    inputs: &[PortInfo],
    init_ports: &[PortInfo],
    outputs: &[PortInfo],
    mut flops: Vec<mixgc_circuit::sequential::Flop>,
    once_ports: &[String],
) -> Result<Sequential, HdlError> {
    for (k, p) in init_ports.iter().enumerate() {
        let register = init_register(&p.name).expect("an init port");
        let mut found = false;
        for f in &mut flops {
            if let Some(bit) = netlist::register_bit(&f.name, register) {
                f.init = FlopInit::Input {
                    port: inputs.len() + k,
                    bit,
                };
                found = true;
            }
        }
        if !found {
            return Err(HdlError::InitPort {
                port: p.name.clone(),
                why: format!("the design has no register `{register}` (its flip-flops were not found)"),
            });
        }
    }
    if let Some(unknown) = once_ports.iter().find(|o| !inputs.iter().any(|p| &p.name == *o)) {
        return Err(HdlError::UnknownOncePort {
            port: unknown.clone(),
        });
    }
    let seq = Sequential {
        inputs: inputs
            .iter()
            .map(|p| SeqInput {
                name: p.name.clone(),
                width: p.width,
                owner: match p.owner {
                    Some(Owner::Garbler) => PartyId::GARBLER,
                    _ => PartyId::EVALUATOR,
                },
                mode: if once_ports.contains(&p.name) {
                    InputMode::Once
                } else {
                    InputMode::PerCycle
                },
            })
            .chain(init_ports.iter().map(|p| SeqInput {
                name: p.name.clone(),
                width: p.width,
                owner: match p.owner {
                    Some(Owner::Garbler) => PartyId::GARBLER,
                    _ => PartyId::EVALUATOR,
                },
                mode: InputMode::Init,
            }))
            .collect(),
        outputs: outputs
            .iter()
            .map(|p| SeqOutput {
                name: p.name.clone(),
                width: p.width,
            })
            .collect(),
        flops,
        core: core.clone(),
    };
    seq.validate()?;
    Ok(seq)
}

/// The top module: the one named, or the one Yosys marked `top`.
fn top_module<'a>(
    design: &'a json::Design,
    top: Option<&str>,
) -> Result<(&'a String, &'a json::Module), HdlError> {
    match top {
        Some(t) => design
            .modules
            .get_key_value(t)
            .ok_or_else(|| HdlError::MissingTop(t.to_string())),
        None => design
            .modules
            .iter()
            .find(|(_, m)| m.attributes.contains_key("top"))
            .or_else(|| design.modules.iter().next())
            .ok_or_else(|| HdlError::MissingTop("(automatic)".to_string())),
    }
}

fn read_design(scratch: &yosys::Scratch, name: &str) -> Result<json::Design, HdlError> {
    let path = scratch.path().join(name);
    let text = read_bounded(&path, MAX_NETLIST_BYTES, |bytes, max| HdlError::TooLarge {
        what: "bytes of netlist",
        count: bytes,
        max,
    })?;
    serde_json::from_str(&text).map_err(|e| HdlError::Json(format!("{name}: {e}")))
}

fn read_bounded(
    path: &std::path::Path,
    max: u64,
    too_large: impl FnOnce(u64, u64) -> HdlError,
) -> Result<String, HdlError> {
    let read_err = |source| HdlError::Read {
        path: path.to_path_buf(),
        source,
    };
    let bytes = std::fs::metadata(path).map_err(read_err)?.len();
    if bytes > max {
        return Err(too_large(bytes, max));
    }
    std::fs::read_to_string(path).map_err(read_err)
}
