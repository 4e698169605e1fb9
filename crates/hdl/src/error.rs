//! What can go wrong between a Verilog file and a circuit.

use std::path::PathBuf;

/// An error of [`crate::synthesize`]. Messages name the file, line and construct where
/// one is known; Yosys's own message is passed through verbatim.
#[derive(Debug, thiserror::Error)]
pub enum HdlError {
    #[error("no Verilog file given")]
    NoFiles,
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is {bytes} bytes, more than the {max}-byte limit for a Verilog source")]
    SourceTooLarge { path: PathBuf, bytes: u64, max: u64 },
    #[error(
        "cannot run `{program}`: {source}. Yosys is needed for `mixgc synth`: install it with \
         `apt-get install yosys` (Debian/Ubuntu) or see https://yosyshq.net/yosys/"
    )]
    YosysMissing { program: String, source: std::io::Error },
    #[error("scratch directory {path}: {source}")]
    Scratch { path: PathBuf, source: std::io::Error },
    /// Yosys failed or warned; `message` holds its error and warning lines.
    #[error("yosys rejected the design:\n{message}")]
    Yosys { message: String },
    #[error("{location}: {construct} is not supported by `mixgc synth` ({why})")]
    Unsupported {
        location: String,
        construct: String,
        why: String,
    },
    #[error(
        "{location}: {what} in a design without a `clk` input: a sequential design (flip-flops \
         garbled over clock cycles, `mixgc run --cycles`) takes its one clock as the input port \
         `clk`"
    )]
    Sequential { location: String, what: String },
    #[error(
        "register `{register}` has no initial value: give it one (`reg [..] {register} = V;` or \
         an initial block assigning it), or an input port `g_init_R`/`e_init_R` (R its register \
         name) that sets it from a party's input"
    )]
    NoInitialValue { register: String },
    #[error("the sequential netlist is malformed: {0}")]
    BadSequential(#[from] mixgc_circuit::sequential::SeqError),
    #[error("init port `{port}`: {why}")]
    InitPort { port: String, why: String },
    #[error("--once-ports names `{port}`, which is not a data input port of the top module")]
    UnknownOncePort { port: String },
    #[error("--once-ports `{port}`: only a sequential design (with a `clk` input) has ports read once")]
    OncePortsCombinational { port: String },
    #[error("{location}: cell `{cell}` reads the clock `clk` as data; `clk` only clocks registers")]
    ClockAsData { location: String, cell: String },
    #[error(
        "input port `{port}` has no owner: name garbler inputs g_* and evaluator inputs e_*, or \
         list the garbler's with --garbler-ports {port},…"
    )]
    UnownedPort { port: String },
    #[error("--garbler-ports names `{port}`, which is not an input port of module `{module}`")]
    UnknownGarblerPort { port: String, module: String },
    #[error(
        "port `{port}` of module `{module}` is an inout port; only input and output ports are supported"
    )]
    InoutPort { port: String, module: String },
    #[error("output port `{port}` bit {bit} is undriven or undefined (x/z) in the synthesized netlist")]
    UndefinedOutput { port: String, bit: usize },
    #[error("module `{module}` has no output ports: it computes nothing")]
    NoOutputs { module: String },
    #[error("{location}: cell `{cell}` reads an undefined value (x/z)")]
    UndefinedInput { location: String, cell: String },
    #[error("{location}: combinational loop through cell `{cell}`")]
    Loop { location: String, cell: String },
    #[error("{location}: net {net} is driven by two cells")]
    MultipleDrivers { location: String, net: u64 },
    #[error("{location}: unexpected cell type `{kind}` in the mapped netlist")]
    UnknownCell { location: String, kind: String },
    #[error("cell `{cell}` lacks its port `{port}` or it is not one bit wide")]
    BadCellPort { cell: String, port: String },
    #[error("the design needs {count} {what}, more than the limit of {max}")]
    TooLarge {
        what: &'static str,
        count: u64,
        max: u64,
    },
    #[error("cannot read Yosys's netlist: {0}")]
    Json(String),
    #[error("top module `{0}` is not in Yosys's netlist")]
    MissingTop(String),
    #[error("the synthesized circuit is malformed: {0}")]
    Circuit(#[from] mixgc_circuit::CircuitError),
}
