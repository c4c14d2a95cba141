#!/bin/sh
# inspect on an XML nested 200,000 levels deep (once a stack overflow in a recursive walk of
# the ECC block): exit 2, with the input and the reason named. Usage: inspect_deep_xml_test.sh GPUPROBE
bin="$1"
out=$(awk 'BEGIN { printf "<nvidia_smi_log><gpu id=\"0\"><product_name>A</product_name><ecc_errors><volatile>";
                   for (i = 0; i < 200000; i++) printf "<a>"; for (i = 0; i < 200000; i++) printf "</a>";
                   print "</volatile></ecc_errors></gpu></nvidia_smi_log>" }' | "$bin" inspect --from - 2>&1)
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: exit status $rc, expected 2: $out"; exit 1; }
echo "$out" | grep -q "standard input: nvidia-smi -q -x XML: elements are nested more than" || { echo "FAIL: message: $out"; exit 1; }
echo "deep XML: ok"
