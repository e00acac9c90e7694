"""Write a hand-made, multi-step decomposition of VGG16 at its real size (224x224 input, batch 1) in the
DESIGN.md layout: model -> 5 conv blocks + classifier (layers) -> Conv+ReLU / Linear+ReLU+Dropout
fusions -> kernels, 18 steps, deduplicated kernel files, explicit weight maps, a tree with instance data.

    python bench/pipeline/make_vgg_decomposition.py OUT_DIR

The files are generated (not stored in the repo): the model is 138 M parameters.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path

# (block, [(cin, cout), ...], spatial size of the block's input)
BLOCKS = [
    (1, [(3, 64), (64, 64)], 224),
    (2, [(64, 128), (128, 128)], 112),
    (3, [(128, 256), (256, 256), (256, 256)], 56),
    (4, [(256, 512), (512, 512), (512, 512)], 28),
    (5, [(512, 512), (512, 512), (512, 512)], 14),
]
LINEARS = [(25088, 4096, True), (4096, 4096, True), (4096, 1000, False)]  # (in, out, followed by ReLU+Dropout)

HEADER = '''"""
Component: {name}
Source: bench/pipeline/make_vgg_decomposition.py (VGG16, 224x224, batch 1)
Abstraction Level: {level}
Parent: {parent}
Operations: {ops}
Input Shapes:
  - x: {inp} dtype=float32
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
'''

SELF_TEST = '''

def get_inputs():
    return [torch.randn({inp})]


def get_init_inputs():
    return {init}


if __name__ == "__main__":
    model = Model(*get_init_inputs()).eval()
    with torch.no_grad():
        out = model(*get_inputs())
    assert torch.isfinite(out).all()
    print("PASS", tuple(out.shape))
'''


def _shape(t: tuple[int, ...]) -> str:
    return ", ".join(str(d) for d in t)


def component(name: str, level: str, parent: str, ops: str, inp: tuple[int, ...], body: str,
              init: str = "[]") -> str:
    return (HEADER.format(name=name, level=level, parent=parent, ops=ops, inp=list(inp))
            + "\n\n" + textwrap.dedent(body).strip("\n") + "\n"
            + SELF_TEST.format(inp=_shape(inp), init=init))


def refactored(doc: str, imports: list[str], init_lines: list[str], forward_lines: list[str],
               inp: tuple[int, ...], init: str = "[]", init_sig: str = "self") -> str:
    lines = [f'"""Refactored {doc}"""', "", "import torch", "import torch.nn as nn", ""]
    lines += [*imports, "", "", "class RefactoredModel(nn.Module):", f"    def __init__({init_sig}):", "        super().__init__()"]
    lines += [f"        {ln}" for ln in init_lines]
    lines += ["", "    def forward(self, x):"] + [f"        {ln}" for ln in forward_lines]
    lines += ["", "", "def get_inputs():", f"    return [torch.randn({_shape(inp)})]", "", "",
              "def get_init_inputs():", f"    return {init}", ""]
    return "\n".join(lines)


def conv_name(cin: int, cout: int, hw: int) -> str:
    return f"conv_relu_{cin}x{cout}_{hw}_fp32"


def lrd_name(i: int, o: int) -> str:
    return f"linear_relu_dropout_{i}x{o}_fp32"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def build(out: Path) -> dict[str, int]:
    lv3, lv2, lv1, lv0 = (out / d for d in ("level_3_model", "level_2_layer", "level_1_fusion", "level_0_kernel"))
    steps = out / "steps"

    # ---- kernels
    kernels: dict[str, str] = {}
    for _, convs, hw in BLOCKS:
        for cin, cout in convs:
            kernels.setdefault(f"conv2d_{cin}x{cout}_fp32", component(
                f"conv2d_{cin}x{cout}_fp32", "kernel", "conv_relu", f"[Conv2d({cin},{cout},3,p=1)]", (1, cin, hw, hw),
                f"""
                class Model(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.op = nn.Conv2d({cin}, {cout}, kernel_size=3, padding=1)

                    def forward(self, x):
                        return self.op(x)
                """))
    kernels["relu_fp32"] = component("relu_fp32", "kernel", "conv_relu", "[ReLU]", (1, 64, 224, 224), """
        class Model(nn.Module):
            def forward(self, x):
                return F.relu(x)
        """)
    kernels["maxpool2d_fp32"] = component("maxpool2d_fp32", "kernel", "block", "[MaxPool2d(2,2)]", (1, 64, 224, 224),
                                          """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.op = nn.MaxPool2d(kernel_size=2, stride=2)

            def forward(self, x):
                return self.op(x)
        """)
    kernels["dropout_fp32"] = component("dropout_fp32", "kernel", "linear_relu_dropout", "[Dropout(0.0)]", (1, 4096),
                                        """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.op = nn.Dropout(p=0.0)

            def forward(self, x):
                return self.op(x)
        """)
    for i, o, _ in LINEARS:
        kernels[f"linear_{i}x{o}_fp32"] = component(f"linear_{i}x{o}_fp32", "kernel", "classifier",
                                                    f"[Linear({i},{o})]", (1, i), f"""
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.op = nn.Linear({i}, {o})

                def forward(self, x):
                    return self.op(x)
            """)
    for name, text in kernels.items():
        write(lv0 / f"{name}.py", text)

    # ---- fusions
    fusions: dict[str, str] = {}
    for _, convs, hw in BLOCKS:
        for cin, cout in convs:
            fusions.setdefault(conv_name(cin, cout, hw), component(
                conv_name(cin, cout, hw), "fusion", "block", f"[Conv2d({cin},{cout}), ReLU]", (1, cin, hw, hw), f"""
                class Model(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.conv = nn.Conv2d({cin}, {cout}, kernel_size=3, padding=1)

                    def forward(self, x):
                        return F.relu(self.conv(x))
                """))
    for i, o, act in LINEARS:
        if act:
            fusions[lrd_name(i, o)] = component(lrd_name(i, o), "fusion", "classifier",
                                                f"[Linear({i},{o}), ReLU, Dropout(0.0)]", (1, i), f"""
                class Model(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.fc = nn.Linear({i}, {o})
                        self.drop = nn.Dropout(p=0.0)

                    def forward(self, x):
                        return self.drop(F.relu(self.fc(x)))
                """)
    for name, text in fusions.items():
        write(lv1 / f"{name}.py", text)

    # ---- layers
    layers: dict[str, str] = {}
    for b, convs, hw in BLOCKS:
        init = "\n".join(f"        self.conv{k + 1} = nn.Conv2d({ci}, {co}, kernel_size=3, padding=1)"
                         for k, (ci, co) in enumerate(convs))
        fwd = "\n".join(f"        x = F.relu(self.conv{k + 1}(x))" for k in range(len(convs)))
        layers[f"block{b}"] = component(f"block{b}", "layer", "VGG16", f"[{len(convs)}x(Conv2d, ReLU), MaxPool2d]",
                                        (1, convs[0][0], hw, hw),
                                        "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                        + init + "\n        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)\n\n"
                                        "    def forward(self, x):\n" + fwd + "\n        return self.pool(x)\n")
    layers["classifier"] = component("classifier", "layer", "VGG16", "[flatten, Linear, ReLU, Dropout, Linear, ReLU, "
                                     "Dropout, Linear]", (1, 512, 7, 7), """
        class Model(nn.Module):
            def __init__(self, num_classes=1000):
                super().__init__()
                self.fc1 = nn.Linear(512 * 7 * 7, 4096)
                self.drop1 = nn.Dropout(p=0.0)
                self.fc2 = nn.Linear(4096, 4096)
                self.drop2 = nn.Dropout(p=0.0)
                self.fc3 = nn.Linear(4096, num_classes)

            def forward(self, x):
                x = torch.flatten(x, 1)
                x = self.drop1(F.relu(self.fc1(x)))
                x = self.drop2(F.relu(self.fc2(x)))
                return self.fc3(x)
        """, init="[1000]")
    for name, text in layers.items():
        write(lv2 / f"{name}.py", text)

    # ---- the model
    feats = []
    for _, convs, _hw in BLOCKS:
        for cin, cout in convs:
            feats.append(f"nn.Conv2d({cin}, {cout}, kernel_size=3, padding=1), nn.ReLU(inplace=True),")
        feats.append("nn.MaxPool2d(kernel_size=2, stride=2),")
    model = component("VGG16", "model", "(none)", "[13x(Conv2d, ReLU), 5x MaxPool2d, 3x Linear, 2x ReLU, 2x Dropout]",
                      (1, 3, 224, 224),
                      "class Model(nn.Module):\n    def __init__(self, num_classes=1000):\n        super().__init__()\n"
                      "        self.features = nn.Sequential(\n"
                      + "".join(f"            {f}\n" for f in feats) + "        )\n"
                      "        self.classifier = nn.Sequential(\n"
                      "            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(inplace=True), nn.Dropout(p=0.0),\n"
                      "            nn.Linear(4096, 4096), nn.ReLU(inplace=True), nn.Dropout(p=0.0),\n"
                      "            nn.Linear(4096, num_classes),\n        )\n\n"
                      "    def forward(self, x):\n        x = self.features(x)\n        x = torch.flatten(x, 1)\n"
                      "        return self.classifier(x)\n", init="[1000]")
    write(lv3 / "vgg16.py", model)

    # ---- steps
    def step(name: str, original: str, ref: str, children: list[tuple[Path, str]], wmap: dict[str, str]) -> None:
        d = steps / name
        write(d / "original.py", original)
        write(d / "refactored.py", ref)
        for folder, child in children:
            write(d / "children" / f"{child}.py", (folder / f"{child}.py").read_text())
        write(d / "weight_map.json", json.dumps(wmap, indent=2) + "\n")

    # step 1: model -> layers
    wmap: dict[str, str] = {}
    idx = 0
    for b, convs, _ in BLOCKS:
        for k in range(len(convs)):
            for p in ("weight", "bias"):
                wmap[f"features.{idx}.{p}"] = f"block{b}.conv{k + 1}.{p}"
            idx += 2
        idx += 1
    for src, dst in ((0, "fc1"), (3, "fc2"), (6, "fc3")):
        for p in ("weight", "bias"):
            wmap[f"classifier.{src}.{p}"] = f"classifier.{dst}.{p}"
    step("step_1_model_to_layers", model, refactored(
        "VGG16: model -> 5 conv blocks + classifier",
        [f"from children.block{b} import Model as Block{b}" for b, _, _ in BLOCKS]
        + ["from children.classifier import Model as Classifier"],
        [f"self.block{b} = Block{b}()" for b, _, _ in BLOCKS] + ["self.classifier = Classifier(num_classes)"],
        [f"x = self.block{b}(x)" for b, _, _ in BLOCKS] + ["return self.classifier(x)"],
        (1, 3, 224, 224), init="[1000]", init_sig="self, num_classes=1000"),
        [(lv2, f"block{b}") for b, _, _ in BLOCKS] + [(lv2, "classifier")], wmap)

    # step 2: blocks -> Conv+ReLU fusions + MaxPool kernel
    for b, convs, hw in BLOCKS:
        names = sorted({conv_name(ci, co, hw) for ci, co in convs}, key=lambda n: [conv_name(*c, hw) for c in convs].index(n))
        imports = [f"from children.{n} import Model as ConvRelu{n.split('_')[2]}" for n in names]
        imports.append("from children.maxpool2d_fp32 import Model as MaxPool")
        init = [f"self.conv_relu_{k + 1} = ConvRelu{ci}x{co}()" for k, (ci, co) in enumerate(convs)]
        init.append("self.pool = MaxPool()")
        fwd = [f"x = self.conv_relu_{k + 1}(x)" for k in range(len(convs))] + ["return self.pool(x)"]
        wm = {f"conv{k + 1}.{p}": f"conv_relu_{k + 1}.conv.{p}" for k in range(len(convs)) for p in ("weight", "bias")}
        step(f"step_2_block{b}_to_fusions", layers[f"block{b}"],
             refactored(f"block{b}: layer -> Conv+ReLU fusions + MaxPool", imports, init, fwd, (1, convs[0][0], hw, hw)),
             [(lv1, n) for n in names] + [(lv0, "maxpool2d_fp32")], wm)

    # step 2: classifier -> Linear+ReLU+Dropout fusions + Linear kernel
    step("step_2_classifier_to_fusions", layers["classifier"], refactored(
        "classifier: layer -> Linear+ReLU+Dropout fusions + Linear kernel",
        [f"from children.{lrd_name(25088, 4096)} import Model as Fc1",
         f"from children.{lrd_name(4096, 4096)} import Model as Fc2",
         "from children.linear_4096x1000_fp32 import Model as Head"],
        ["self.fc1 = Fc1()", "self.fc2 = Fc2()", "self.head = Head()"],
        ["x = torch.flatten(x, 1)", "x = self.fc1(x)", "x = self.fc2(x)", "return self.head(x)"],
        (1, 512, 7, 7), init="[1000]", init_sig="self, num_classes=1000"),
        [(lv1, lrd_name(25088, 4096)), (lv1, lrd_name(4096, 4096)), (lv0, "linear_4096x1000_fp32")],
        {"fc1.weight": "fc1.fc.weight", "fc1.bias": "fc1.fc.bias", "fc2.weight": "fc2.fc.weight",
         "fc2.bias": "fc2.fc.bias", "fc3.weight": "head.op.weight", "fc3.bias": "head.op.bias"})

    # step 3: each distinct fusion -> kernels
    done: set[str] = set()
    for _, convs, hw in BLOCKS:
        for cin, cout in convs:
            n = conv_name(cin, cout, hw)
            if n in done:
                continue
            done.add(n)
            step(f"step_3_{n.removesuffix('_fp32')}_to_kernels", fusions[n], refactored(
                f"{n}: fusion -> Conv2d + ReLU kernels",
                [f"from children.conv2d_{cin}x{cout}_fp32 import Model as Conv", "from children.relu_fp32 import Model as Relu"],
                ["self.conv = Conv()", "self.relu = Relu()"], ["return self.relu(self.conv(x))"], (1, cin, hw, hw)),
                [(lv0, f"conv2d_{cin}x{cout}_fp32"), (lv0, "relu_fp32")],
                {"conv.weight": "conv.op.weight", "conv.bias": "conv.op.bias"})
    for i, o, act in LINEARS:
        if not act:
            continue
        n = lrd_name(i, o)
        step(f"step_3_{n.removesuffix('_fp32')}_to_kernels", fusions[n], refactored(
            f"{n}: fusion -> Linear + ReLU + Dropout kernels",
            [f"from children.linear_{i}x{o}_fp32 import Model as Linear", "from children.relu_fp32 import Model as Relu",
             "from children.dropout_fp32 import Model as Dropout"],
            ["self.linear = Linear()", "self.relu = Relu()", "self.drop = Dropout()"],
            ["return self.drop(self.relu(self.linear(x)))"], (1, i)),
            [(lv0, f"linear_{i}x{o}_fp32"), (lv0, "relu_fp32"), (lv0, "dropout_fp32")],
            {"fc.weight": "linear.op.weight", "fc.bias": "linear.op.bias"})

    # ---- the tree: one node per instance, kernels shared by path
    nodes: dict[str, dict] = {}

    def node(nid: str, name: str, level: str, path: str, children: list[str], step_dir: str | None = None) -> None:
        nodes[nid] = {"id": nid, "name": name, "level": level, "path": path, "children": children,
                      "input_shapes": {}, "output_shapes": {}, "input_dtypes": {"x": "float32"},
                      "output_dtypes": {"out": "float32"}}
        if step_dir:
            nodes[nid]["step"] = step_dir
    node("root", "VGG16", "model", "level_3_model/vgg16.py", [f"block{b}" for b, _, _ in BLOCKS] + ["classifier"],
         "steps/step_1_model_to_layers")
    for b, convs, hw in BLOCKS:
        kids = []
        for k, (ci, co) in enumerate(convs):
            fid = f"block{b}.conv_relu_{k + 1}"
            n = conv_name(ci, co, hw)
            kids.append(fid)
            node(fid, n, "fusion", f"level_1_fusion/{n}.py", [f"{fid}.conv", f"{fid}.relu"],
                 f"steps/step_3_{n.removesuffix('_fp32')}_to_kernels")
            node(f"{fid}.conv", f"conv2d_{ci}x{co}", "kernel", f"level_0_kernel/conv2d_{ci}x{co}_fp32.py", [])
            node(f"{fid}.relu", "relu", "kernel", "level_0_kernel/relu_fp32.py", [])
        kids.append(f"block{b}.pool")
        node(f"block{b}.pool", "maxpool2d", "kernel", "level_0_kernel/maxpool2d_fp32.py", [])
        node(f"block{b}", f"block{b}", "layer", f"level_2_layer/block{b}.py", kids, f"steps/step_2_block{b}_to_fusions")
    ckids = []
    for k, (i, o, act) in enumerate(LINEARS):
        if act:
            fid = f"classifier.fc{k + 1}"
            ckids.append(fid)
            node(fid, lrd_name(i, o), "fusion", f"level_1_fusion/{lrd_name(i, o)}.py",
                 [f"{fid}.linear", f"{fid}.relu", f"{fid}.drop"],
                 f"steps/step_3_{lrd_name(i, o).removesuffix('_fp32')}_to_kernels")
            node(f"{fid}.linear", f"linear_{i}x{o}", "kernel", f"level_0_kernel/linear_{i}x{o}_fp32.py", [])
            node(f"{fid}.relu", "relu", "kernel", "level_0_kernel/relu_fp32.py", [])
            node(f"{fid}.drop", "dropout", "kernel", "level_0_kernel/dropout_fp32.py", [])
        else:
            ckids.append("classifier.head")
            node("classifier.head", f"linear_{i}x{o}", "kernel", f"level_0_kernel/linear_{i}x{o}_fp32.py", [])
    node("classifier", "classifier", "layer", "level_2_layer/classifier.py", ckids, "steps/step_2_classifier_to_fusions")
    tree = {"metadata": {"source_file": "bench/pipeline/make_vgg_decomposition.py", "source_level": "level3",
                         "model_name": "vgg16_b1", "timestamp": "2026-11-30T00:00:00+00:00",
                         "total_components": len(nodes), "by_level": {}, "unique_kernels": len(kernels),
                         "verification_status": "UNVERIFIED"},
            "nodes": nodes, "data_flow": []}
    write(out / "decomposition_tree.json", json.dumps(tree, indent=2) + "\n")
    return {"steps": len(list(steps.iterdir())), "kernel_files": len(kernels), "fusion_files": len(fusions),
            "nodes": len(nodes)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    print(json.dumps(build(args.out)))


if __name__ == "__main__":
    main()
