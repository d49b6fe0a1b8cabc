// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IDepositCollector, TokenCalls} from "./BatchSettlementTypes.sol";

/// @notice EIP-3009's receiveWithAuthorization, in both the (v, r, s) form every USDC has and the
/// packed-signature form of USDC v2.2 (which also accepts EIP-1271 wallets).
interface IEip3009Receive {
    function receiveWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        uint8 v, bytes32 r, bytes32 s
    ) external;

    function receiveWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        bytes calldata signature
    ) external;
}

/// @title Erc3009DepositCollector
/// @notice Pulls a batch-settlement deposit from the payer with the payer's EIP-3009
/// ReceiveWithAuthorization (payee: this collector) and forwards it to the settlement contract.
/// The authorization's nonce is keccak256(abi.encode(channelId, salt)), so a signature deposits
/// into exactly one channel and cannot be replayed elsewhere.
/// @dev Only the settlement contract at its canonical address may call `collect`: the payee check
/// of receiveWithAuthorization makes this contract the only possible submitter of the transfer,
/// and this check makes the settlement contract the only possible destination. Constructor-less
/// (placed with set-code), so the settlement address is a constant.
contract Erc3009DepositCollector is IDepositCollector {
    using TokenCalls for address;

    address public constant SETTLEMENT = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;

    error OnlySettlement();

    /// @param data abi.encode(uint256 validAfter, uint256 validBefore, uint256 salt, bytes signature)
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data) external {
        if (msg.sender != SETTLEMENT) revert OnlySettlement();
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(data, (uint256, uint256, uint256, bytes));
        bytes32 nonce = keccak256(abi.encode(channelId, salt));
        if (signature.length == 65) {
            (uint8 v, bytes32 r, bytes32 s) = _split(signature);
            IEip3009Receive(token).receiveWithAuthorization(payer, address(this), amount, validAfter, validBefore, nonce, v, r, s);
        } else {
            IEip3009Receive(token).receiveWithAuthorization(payer, address(this), amount, validAfter, validBefore, nonce, signature);
        }
        token.safeTransfer(SETTLEMENT, amount);
    }

    function _split(bytes memory signature) private pure returns (uint8 v, bytes32 r, bytes32 s) {
        assembly {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
    }
}
