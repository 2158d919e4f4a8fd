# upstream/profile_select.bzl: select() over the driver profiles
# (upstream/profiles/*.profile), for upstream/BUILD.

def _fill(value, p):
    if type(value) == "list":
        return [v.replace("{p}", p) for v in value]
    return value.replace("{p}", p)

def per_profile(profiles, value):
    """select() of `value` (a string or a list of strings) with every "{p}"
    replaced by the profile named by --define=flowcheck_profile (hfi1 when
    unset); needs the config_settings ":profile_<name>" of upstream/BUILD."""
    branches = {":profile_" + p: _fill(value, p) for p in profiles}
    branches["//conditions:default"] = _fill(value, "hfi1")
    return select(branches)
