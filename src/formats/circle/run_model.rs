//! `RUN_MODEL` (Circle 0.10): an operator that loads and runs another model file, named by a
//! path relative to the directory of the model that holds the operator.

use super::{BuiltinOptions, Model};

/// One `RUN_MODEL` operator's reference to another model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunModelRef<'a> {
    /// The subgraph that holds the operator.
    pub subgraph: usize,
    /// The operator's index in it.
    pub operator: usize,
    /// `RunModelOptions.location`: the model file, relative to this model's directory.
    pub location: Option<&'a str>,
    /// `RunModelOptions.signature`: the entry signature; none or empty for the model's first
    /// subgraph.
    pub signature: Option<&'a str>,
}

impl<'a> Model<'a> {
    /// Calls `f` with each operator whose options are `RunModelOptions`, in subgraph and
    /// operator order. Looks at no more operators than a quarter of the file's bytes (a file
    /// without shared tables has fewer: each operator table starts with a 4-byte offset), so
    /// the walk stays linear in the file whatever its offsets share.
    pub fn for_each_run_model(&self, mut f: impl FnMut(RunModelRef<'a>)) {
        let mut left = self.raw().buffer().len() / 4;
        for (subgraph, sg) in self.subgraphs().into_iter().flatten().enumerate() {
            for (operator, op) in sg.operators().into_iter().flatten().enumerate() {
                let Some(rest) = left.checked_sub(1) else { return };
                left = rest;
                if let BuiltinOptions::RunModelOptions(o) = op.builtin_options() {
                    f(RunModelRef { subgraph, operator, location: o.location(), signature: o.signature() });
                }
            }
        }
    }
}
