"""The shipped stable-ABI table agrees with CPython's ``Misc/stable_abi.toml``.

The excerpt below is in the toml's own format, with items copied from CPython's file (one of
each kind, across the versions that added them); ``scripts/gen_stable_abi.py`` reads the
whole file the same way to regenerate ``audit/data/stable_abi.json``.
"""

from __future__ import annotations

import importlib.util
from types import ModuleType

from conftest import REPO_ROOT
from wheel_size.audit.stable_abi import abi3_baseline, newer_imports, stable_abi

EXCERPT = """
[struct.PyObject]
    added = '3.2'
    members = ['ob_refcnt', 'ob_type']
    struct_abi_kind = 'members'
[function.PyType_FromSpec]
    added = '3.2'
[const.Py_tp_dealloc]
    added = '3.2'
[data.PyBaseObject_Type]
    added = '3.2'
[function._PyObject_GC_New]
    added = '3.2'
    abi_only = true
[function.PyCFunction_New]
    added = '3.4'
[function.PyModuleDef_Init]
    added = '3.5'
[data.PyModuleDef_Type]
    added = '3.5'
[function.PyErr_GetExcInfo]
    added = '3.7'  # (and 3.6.1 and 3.5.3)
[function.PyThread_get_thread_native_id]
    added = '3.2'
    ifdef = 'PY_HAVE_THREAD_NATIVE_ID'
"""


def generator() -> ModuleType:
    path = REPO_ROOT / "scripts" / "gen_stable_abi.py"
    spec = importlib.util.spec_from_file_location("gen_stable_abi", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_toml_items_read_as_the_shipped_table_has_them() -> None:
    parsed = generator().from_toml(EXCERPT)
    assert set(parsed) == {
        "PyType_FromSpec", "PyBaseObject_Type", "_PyObject_GC_New", "PyCFunction_New",
        "PyModuleDef_Init", "PyModuleDef_Type", "PyErr_GetExcInfo",
        "PyThread_get_thread_native_id",
    }  # fmt: skip
    assert parsed["PyErr_GetExcInfo"]["added"] == "3.7"
    shipped = stable_abi()
    for name, item in parsed.items():
        assert shipped[name] == item, name


def test_version_check_uses_the_added_versions() -> None:
    imports = {"PyFrame_GetCode", "PyUnicode_AsUTF8AndSize", "PyLong_FromLong", "printf"}
    assert newer_imports(imports, set(), (3, 9)) == {
        "PyFrame_GetCode": (3, 10),
        "PyUnicode_AsUTF8AndSize": (3, 10),
    }
    assert newer_imports(imports, set(), (3, 10)) == {}
    assert newer_imports(imports, {"PyFrame_GetCode"}, (3, 9)) == {
        "PyUnicode_AsUTF8AndSize": (3, 10)
    }  # a symbol the library defines itself is not an import
    assert abi3_baseline(["cp39"]) == (3, 9)
    assert abi3_baseline(["cp39", "cp311"]) == (3, 11)  # the highest, as abi3audit reads it
    assert abi3_baseline(["py3"]) is None
