"""Template families: the demangled name without template arguments, return type and
parameters, on the shapes c++filt prints for CUDA and HIP kernels."""

from __future__ import annotations

import pytest

from wheel_size.kernels.family import template_family

CASES = {
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float>, unsigned int, float, 4>)": "at::native::reduce_kernel<…>",
    "void scale_kernel<double, 1>(double*, int)": "scale_kernel<…>",
    "uses_helper(float*)": "uses_helper",
    "main": "main",
    "(anonymous namespace)::bar<int>(int)": "(anonymous namespace)::bar<…>",
    "void at::native::(anonymous namespace)::k<int>(int)::{lambda(int)#1}::operator()(int) const": (
        "at::native::(anonymous namespace)::k<…>(int)::{lambda(int)#1}::operator()"
    ),
    "std::vector<int, std::allocator<int> >::operator<<(int)": "std::vector<…>::operator<<",
    "foo() [clone .cold]": "foo",
    "void f<(anonymous namespace)::X>()": "f<…>",
    "a<b>::c<d>": "a<…>::c<…>",
    "$_Z11uses_helperPf$_Z6helperf": "$_Z11uses_helperPf$_Z6helperf",
}


@pytest.mark.parametrize("demangled", sorted(CASES))
def test_family(demangled: str) -> None:
    assert template_family(demangled) == CASES[demangled]


def test_instantiations_share_a_family() -> None:
    names = [
        f"void cutlass::Kernel2<cutlass_80_{t}_gemm>(cutlass_80_{t}_gemm::Params)" for t in "ab"
    ]
    assert {template_family(n) for n in names} == {"cutlass::Kernel2<…>"}
