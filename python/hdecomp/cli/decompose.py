"""`hdecomp decompose MODEL.py`: the automatic, verified decomposition."""

from __future__ import annotations

import argparse

from hdecomp.cli.common import emit_json, run_options

HELP = "automatic, verified decomposition of a model file (no LLM)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="the model file (KernelBench convention)")
    p.add_argument("-o", "--output", default=None,
                   help="output root: the decomposition goes to OUTPUT/<model stem>/ (default: the folder "
                        "`hdecomp prompt` names, output/<levelN or examples>/<model stem>/)")
    p.add_argument("--max-depth", type=int, default=None, help="stop descending after this many levels")
    p.add_argument("--name", default=None, help="model name (default: the file's stem)")
    run_options(p)
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    import torch
    from rich.console import Console

    from hdecomp.decompose.driver import decompose
    from hdecomp.decompose.outputs import final_summary, result_dict
    from hdecomp.decompose.state import DecomposeOptions
    from hdecomp.errors import HdecompError

    console = Console(stderr=True) if args.json else Console()
    options = DecomposeOptions(device=args.device, batch_limit=args.batch_limit, timeout=args.timeout,
                               num_trials=args.num_trials, rtol=args.rtol, atol=args.atol,
                               max_depth=args.max_depth, name=args.name, reference_cache=not args.no_cache)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        raise HdecompError(f"--device {args.device}: no CUDA device is available")
    dec = decompose(args.model, args.output, options, console=console, progress=True)
    res = result_dict(dec)
    if args.json:
        emit_json(res)
    else:
        # soft_wrap: paths stay on one line, so they can be copied
        console.print(f"{res['status']}: {res['steps_passed']}/{res['steps']} steps passed, "
                      f"{res['components']} components, {res['unique_kernels']} unique kernels "
                      f"({res['kernel_instances']} instances) -> {dec.root}", soft_wrap=True, markup=False)
        for nid in res["incomplete"]:
            console.print(f"  incomplete: {nid}: {res['reasons'].get(nid, '')}", soft_wrap=True, markup=False)
        for k in ("coverage", "self_tests", "composition"):
            if k in dec.finals:
                console.print(f"  {final_summary(k, dec.finals[k])}", soft_wrap=True, markup=False)
        if args.verbose:
            for e in dec.log:
                console.print(f"  [{e['type']}] {e['step'] or '-'}: {e['title']}: {e['description']}",
                              markup=False)
    return {"PASS": 0, "PARTIAL": 1, "ERROR": 2}[res["status"]]
