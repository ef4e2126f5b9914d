//! Errors located by a schema path, such as `Model.subgraphs[0].tensors[12].name`.

use crate::error::{Error, ErrorKind, Location};
use crate::verify::Name;

/// One step of a path: a field and, for a vector element, its index.
pub(crate) type Segment = (Name, Option<usize>);

/// A failure before its error is built: the error's kind and, when it is located at a field
/// of the element at fault rather than at the element, that field. Small, so that lookups
/// return it cheaply and their public wrapper builds the one [`Error`].
pub(crate) type Fault = (ErrorKind, Option<Name>);

/// An error of `kind` at byte `offset`, located at `root.<outer>.<inner>` (each list outermost
/// first; `inner` continues `outer`). Indices past `u32` are left out.
#[cold]
pub(crate) fn path_error(kind: ErrorKind, offset: u64, root: Name, outer: &[Segment], inner: &[Segment]) -> Error {
    let mut location = Location::at(root);
    for &(name, index) in outer.iter().chain(inner).rev() {
        location.push_outer(name, index.and_then(|i| u32::try_from(i).ok()));
    }
    Error::new(kind, offset, location)
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::string::ToString;

    static ROOT: &str = "Model";
    static A: &str = "subgraphs";
    static B: &str = "tensors";
    static C: &str = "name";

    #[test]
    fn paths_join_outer_and_inner_outermost_first() {
        let e = path_error(ErrorKind::InvalidUtf8, 9, &ROOT, &[(&A, Some(0))], &[(&B, Some(12)), (&C, None)]);
        assert_eq!(e.to_string(), "string is not valid UTF-8 at byte 9 (Model.subgraphs[0].tensors[12].name)");
        let big = usize::try_from(u64::from(u32::MAX) + 1).ok();
        let e = path_error(ErrorKind::NotFound, 0, &ROOT, &[(&A, big)], &[]);
        assert_eq!(e.location().to_string(), "Model.subgraphs");
    }
}
