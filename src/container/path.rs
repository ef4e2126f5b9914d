//! Errors located by a schema path, such as `Model.subgraphs[0].tensors[12].name`.

use crate::error::{Error, ErrorKind, Location};
use crate::verify::Name;

/// One step of a path: a field and, for a vector element, its index.
pub(crate) type Segment = (Name, Option<usize>);

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
