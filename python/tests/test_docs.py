"""Every public function and class, and every public attribute and method of each class, has a
docstring; the stubs name every class the module exports."""

import inspect
from pathlib import Path

import flatmodel


def test_every_public_name_has_a_docstring():
    missing = []
    for name in flatmodel.__all__:
        obj = getattr(flatmodel, name)
        if not (obj.__doc__ or "").strip():
            missing.append(name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, value in vars(obj).items():
                if not attr.startswith("_") and not (getattr(value, "__doc__", None) or "").strip():
                    missing.append(f"{name}.{attr}")
    assert not missing


def test_the_stubs_declare_every_exported_name():
    stubs = (Path(flatmodel.__file__).parent / "__init__.pyi").read_text()
    for name in flatmodel.__all__:
        assert f"class {name}" in stubs or f"def {name}(" in stubs, name
