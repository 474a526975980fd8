//! The `readout` binary: a thin front end over [`readout::cmd`].

use std::process::ExitCode;

fn main() -> ExitCode {
    readout::cmd::main()
}
