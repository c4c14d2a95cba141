// gpuprobe's entry point: everything happens in RunCli (cli/run_cli.cpp).
#include <iostream>

#include "cli/command.h"

int main(int argc, char** argv) { return gpuprobe::cli::RunCli(argc, argv, std::cout, std::cerr); }
