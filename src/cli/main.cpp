// gpuprobe's entry point: everything happens in RunCli (cli/cli_app.cpp).
#include <iostream>

#include "cli/cli_app.h"

int main(int argc, char** argv) { return gpuprobe::cli::RunCli(argc, argv, std::cout, std::cerr); }
