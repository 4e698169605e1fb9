//! `mixgc primes`: the CRT prime set for a bit width (ABLE §3.1, exact minimum sum).

use clap::Args;
use mixgc_arith::primes::{first_primes, min_sum_primes};

use crate::{write_stdout, CliError};

#[derive(Args, Debug)]
pub struct PrimesArgs {
    /// Bit width w of the values (1 to 127): the primes' product is at least 2^w.
    #[arg(long)]
    width: u32,
    /// Print the first k primes (the classic choice) instead of the minimum-sum set.
    #[arg(long)]
    baseline: bool,
}

/// Prints the chosen primes, comma-separated, ascending.
pub fn primes(args: PrimesArgs) -> Result<(), CliError> {
    let set = if args.baseline {
        first_primes(args.width)?
    } else {
        min_sum_primes(args.width)?
    };
    let list: Vec<String> = set.primes().iter().map(u64::to_string).collect();
    write_stdout(&format!("{}\n", list.join(",")))
}
