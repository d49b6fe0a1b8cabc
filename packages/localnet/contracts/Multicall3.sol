// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title Multicall3 (localnet)
/// @notice Batched calls at the address every public chain has Multicall3 at
/// (0xcA11bde05977b3631167028862bE2a173976CA11), with the same function signatures, so clients
/// that read through it (the x402 EVM SDK facilitators use `tryAggregate`, viem's multicall uses
/// `aggregate3`) work on the local EVM unchanged. Written for the localnet from the published
/// interface; value-forwarding variants are left out.
contract Multicall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    error CallFailed(uint256 index);

    /// @notice Every call must succeed; returns the block number and each call's return data.
    function aggregate(Call[] calldata calls) external payable returns (uint256 blockNumber, bytes[] memory returnData) {
        blockNumber = block.number;
        returnData = new bytes[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (!ok) revert CallFailed(i);
            returnData[i] = ret;
        }
    }

    /// @notice Each call's success and data; reverts on a failure only when `requireSuccess`.
    function tryAggregate(bool requireSuccess, Call[] calldata calls) public payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess && !ok) revert CallFailed(i);
            returnData[i] = Result(ok, ret);
        }
    }

    /// @notice Each call's success and data; a failure reverts unless that call allows it.
    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (!ok && !calls[i].allowFailure) revert CallFailed(i);
            returnData[i] = Result(ok, ret);
        }
    }

    function getBlockNumber() external view returns (uint256) {
        return block.number;
    }

    function getCurrentBlockTimestamp() external view returns (uint256) {
        return block.timestamp;
    }

    function getChainId() external view returns (uint256) {
        return block.chainid;
    }

    function getEthBalance(address account) external view returns (uint256) {
        return account.balance;
    }
}
