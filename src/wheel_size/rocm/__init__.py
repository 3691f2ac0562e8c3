"""ROCm device code: offload bundles, compressed bundles (CCOB), AMDGPU code objects,
``.kpack`` archives and the host-library rewrite that points HIP at them.

Formats and behaviour follow the ROCm split specification (sections 1.4, 2 and 4.1),
summarised for users in ``docs/split.md``.
"""
